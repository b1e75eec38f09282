"""An NDN peer over UDP made of python-ndn's codec, run inside a test's
network namespace by tests/py/test_ndn_interop.py (NDN's UDP face: one
packet per datagram, port 6363).

  ndn_peer.py client HOST PORT HEX...     send each packet, print each reply
                                          (hex) or "timeout"
  ndn_peer.py producer PORT COUNT CONTENT FRESH_MS
                                          answer COUNT Interests with Data of
                                          their name (DigestSha256-signed);
                                          print "interest HEX" and "data HEX"
"""
import socket
import sys

from ndn.encoding import MetaInfo, make_data, parse_interest
from ndn.security import DigestSha256Signer


def client(host: str, port: int, packets: list[str]) -> None:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.settimeout(5.0)
    for hexpkt in packets:
        s.sendto(bytes.fromhex(hexpkt), (host, port))
        try:
            reply, _ = s.recvfrom(9000)
            print(reply.hex(), flush=True)
        except socket.timeout:
            print("timeout", flush=True)


def producer(port: int, count: int, content: str, fresh: int) -> None:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("::", port))
    print("ready", flush=True)
    for _ in range(count):
        pkt, peer = s.recvfrom(9000)
        print("interest", pkt.hex(), flush=True)
        name, _, _, _ = parse_interest(pkt)
        data = make_data(name, MetaInfo(freshness_period=fresh), content.encode(),
                         signer=DigestSha256Signer())
        print("data", bytes(data).hex(), flush=True)
        s.sendto(bytes(data), peer)


if __name__ == "__main__":
    if sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        producer(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
