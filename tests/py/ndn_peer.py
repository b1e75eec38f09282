"""An NDN peer over UDP made of python-ndn's codec, run inside a test's
network namespace by tests/py/test_ndn_interop.py (NDN's UDP face: one
packet per datagram, port 6363).

  ndn_peer.py client HOST PORT HEX...     send each packet, print each reply
                                          (hex) or "timeout"
  ndn_peer.py eth IFNAME MAC HEX...      the same over Ethernet (EtherType 0x8624)
  ndn_peer.py eth-producer IFNAME CONTENT  answer one Interest over Ethernet
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


def eth(ifname: str, dst: str, packets: list[str]) -> None:
    """NDN over Ethernet (EtherType 0x8624): each packet in a frame to
    @dst, zero-padded to the 60-octet minimum as a NIC would; print the
    payload of the NDN frame that comes back from @dst, or "timeout"."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x8624))
    s.bind((ifname, 0))
    s.settimeout(5.0)
    mac, peer = s.getsockname()[4], bytes.fromhex(dst.replace(":", ""))
    for hexpkt in packets:
        frame = peer + mac + b"\x86\x24" + bytes.fromhex(hexpkt)
        s.send(frame.ljust(60, b"\0"))
        try:
            while True:
                reply = s.recv(9000)
                if reply[6:12] == peer and reply[12:14] == b"\x86\x24":
                    print(reply[14:].hex(), flush=True)
                    break
        except socket.timeout:
            print("timeout", flush=True)


def eth_producer(ifname: str, content: str) -> None:
    """Answer one NDN Interest over Ethernet: print "frame DST_MAC HEX" of
    the frame it came in, reply with the Data to its source."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x8624))
    s.bind((ifname, 0))
    s.settimeout(20.0)
    mac = s.getsockname()[4]
    print("ready", flush=True)
    frame = s.recv(9000)
    print("frame", frame[:6].hex(), frame[14:].hex(), flush=True)
    name, _, _, _ = parse_interest(frame[14:])
    data = make_data(name, MetaInfo(), content.encode(), signer=DigestSha256Signer())
    s.send(frame[6:12] + mac + b"\x86\x24" + bytes(data))


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
    elif sys.argv[1] == "eth-producer":
        eth_producer(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "eth":
        eth(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        producer(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
