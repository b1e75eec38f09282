"""wren's NDN stack against python-ndn (PyPI), over NDN's UDP face (port
6363) on wren's own UDP/IPv6 stack: wren-node on a TAP in a network
namespace, python-ndn's codec in a peer process there (tests/py/ndn_peer.py).

Both ways, byte for byte: wren answers python-ndn's Interests (every field,
a long name) with the Data python-ndn encodes for the same name and
content; wren's Interests are what python-ndn encodes for their fields;
python-ndn's Data, fetched by wren, come back from wren's Content Store as
they were; and an Interest wren forwards differs from the one it got only
in the HopLimit, one less. Timeouts only guard against hangs."""
import subprocess
import sys
from pathlib import Path

import pytest

ndn_encoding = pytest.importorskip("ndn.encoding")
from ndn.encoding import InterestParam, MetaInfo, make_data, make_interest, parse_interest  # noqa: E402
from ndn.security import DigestSha256Signer  # noqa: E402

PEER = Path(__file__).with_name("ndn_peer.py")
WREN_LL = "fe80::57:52ff:fe00:1"     # wren-node --id 1 on the TAP
KERNEL_LL = "fe80::1"
CONTENT = "hello-from-wren"


@pytest.fixture
def ndn_node(tapns, wren_node):
    node = wren_node("--tap", "tap0", "--id", "1", ns=tapns)
    node.wait_valid(WREN_LL)
    tapns.ip("-6", "addr", "add", f"{KERNEL_LL}/64", "dev", "tap0", "nodad")
    yield tapns, node
    assert node.pktbuf_empty(), "wren-node's packet buffer is not empty at the end"
    assert node.exit() == 0


def client(ns, *packets: bytes) -> list[str]:
    res = ns.run(sys.executable, PEER, "client", f"{WREN_LL}%tap0", 6363,
                 *(bytes(p).hex() for p in packets), timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


def data_for(interest: bytes, content: str, fresh: int) -> bytes:
    name, _, _, _ = parse_interest(interest)
    return bytes(make_data(name, MetaInfo(freshness_period=fresh or None), content.encode(),
                           signer=DigestSha256Signer()))


def every_field(name: str, nonce: int, hop_limit: int) -> bytes:
    return bytes(make_interest(name, InterestParam(can_be_prefix=True, must_be_fresh=True,
                                                   nonce=nonce, lifetime=2500,
                                                   hop_limit=hop_limit,
                                                   forwarding_hint=["/hint/a", "/hint/b"]),
                               app_param=b"parameters \x00\x01\xff"))


def test_python_ndn_interests_get_wren_data_byte_exact(ndn_node):
    ns, node = ndn_node
    node.run(f"ndn serve /wren/interop {CONTENT} fresh 1000", r"serving")
    long_name = "/wren/interop/" + "/".join(f"component-{i:02d}-{'x' * 12}" for i in range(30))
    interests = [
        make_interest("/wren/interop/plain", InterestParam(nonce=0x11111111, lifetime=1000)),
        every_field("/wren/interop/all", 0x22222222, 9),
        make_interest(long_name, InterestParam(nonce=0x33333333, lifetime=1000)),
    ]
    assert len(bytes(interests[2])) > 700
    replies = client(ns, *interests)
    for interest, reply in zip(interests, replies):
        assert reply != "timeout"
        assert bytes.fromhex(reply) == data_for(bytes(interest), CONTENT, 1000), \
            parse_interest(bytes(interest))[0]
    stats = node.run("ndn counters", r"cs_evictions")
    assert "rx_drop_" not in "".join(ln for ln in stats.splitlines() if not ln.endswith(" 0"))


def test_wren_fetches_and_forwards_python_ndn_data_byte_exact(ndn_node):
    ns, node = ndn_node
    prod = ns.popen(sys.executable, PEER, "producer", 6363, 2, "from-python-ndn", 5000,
                    stdout=subprocess.PIPE, text=True)
    assert prod.stdout.readline().strip() == "ready"
    node.run(f"ndn route add /py udp {KERNEL_LL} 6363", r"route /py face")
    out = node.run("ndn interest /py/data/1 lifetime 3000", r"ndn: (data|timeout)")
    assert 'ndn: data /py/data/1' in out and '"from-python-ndn"' in out, out
    sent = bytes.fromhex(prod.stdout.readline().split()[1])
    made = bytes.fromhex(prod.stdout.readline().split()[1])
    # wren's Interest is python-ndn's encoding of its fields
    name, param, _, _ = parse_interest(sent)
    assert ndn_encoding.Name.to_str(name) == "/py/data/1" and param.lifetime == 3000
    assert sent == bytes(make_interest(name, InterestParam(nonce=param.nonce, lifetime=3000)))
    # the Data python-ndn made come back from wren's Content Store unchanged
    again = make_interest("/py/data/1", InterestParam(nonce=0x44444444, lifetime=1000))
    assert client(ns, again) == [made.hex()]
    # an Interest wren forwards: the same octets, HopLimit one less
    fwd = every_field("/py/fwd/x", 0x55555555, 7)
    reply = client(ns, fwd)
    got = bytes.fromhex(prod.stdout.readline().split()[1])
    made = bytes.fromhex(prod.stdout.readline().split()[1])
    assert got == every_field("/py/fwd/x", 0x55555555, 6)
    assert reply == [made.hex()]
    assert prod.wait(10) == 0


def test_python_ndn_over_ethernet_0x8624(ndn_node):
    """The same over NDN's Ethernet face (EtherType 0x8624, no IP): a short
    Interest padded to the 60-octet frame minimum is read to its TLV's end,
    and the Data come back in a frame of that EtherType."""
    ns, node = ndn_node
    node.run(f"ndn serve /wren/eth {CONTENT}", r"serving")
    interests = [make_interest("/wren/eth/a", InterestParam(nonce=0x66666666, lifetime=1000)),
                 every_field("/wren/eth/all", 0x77777777, 3)]
    assert len(bytes(interests[0])) + 14 < 60
    res = ns.run(sys.executable, PEER, "eth", "tap0", "02:57:52:00:00:01",
                 *(bytes(p).hex() for p in interests), timeout=60)
    assert res.returncode == 0, res.stderr
    replies = res.stdout.split()
    assert replies == [data_for(bytes(i), CONTENT, 0).hex() for i in interests], replies


def test_wren_interest_to_the_ndn_multicast_group_gets_python_ndn_data(ndn_node):
    """A route to the TAP's broadcast face sends the Interest to NFD's NDN
    multicast group 01:00:5e:00:17:aa; python-ndn's Data, sent back to
    wren's MAC, are consumed."""
    ns, node = ndn_node
    prod = ns.popen(sys.executable, PEER, "eth-producer", "tap0", "over-ethernet",
                    stdout=subprocess.PIPE, text=True)
    assert prod.stdout.readline().strip() == "ready"
    node.run("ndn route add /mc if 1", r"route /mc face")
    out = node.run("ndn interest /mc/x lifetime 3000", r"ndn: (data|timeout)")
    assert 'ndn: data /mc/x' in out and '"over-ethernet"' in out, out
    _, dst, interest = prod.stdout.readline().split()
    assert dst == "01005e0017aa"
    name, param, _, _ = parse_interest(bytes.fromhex(interest))
    assert ndn_encoding.Name.to_str(name) == "/mc/x" and param.lifetime == 3000
    assert prod.wait(10) == 0
