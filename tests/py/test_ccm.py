"""wren's AES-128 CCM* (src/crypto/ccm.c, called through libwren_sim.so)
against the Python cryptography package: AESCCM for MIC-32/64/128 and
AES in counter mode for CCM*'s encryption-only mode (MIC length 0), with
random keys, nonces, lengths of the authenticated and encrypted parts;
opening what cryptography sealed, and refusing it after a bit flip."""
import ctypes
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

from wren import lib as wlib

EBADMSG = 74


@pytest.fixture(scope="module")
def ccm():
    lib = wlib.load()
    fn = lib.wren_ccm
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                   ctypes.c_size_t, ctypes.c_size_t, ctypes.c_bool]

    def run(key, nonce, data, a_len, m_len, mic_len, open_):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        rc = fn(key, nonce, buf, a_len, m_len, mic_len, open_)
        return rc, buf.raw
    return run


def ctr_only(key, nonce, m):
    """CCM* with M = 0: m XOR the key stream from A_1 = 0x01 | nonce | 1."""
    enc = Cipher(algorithms.AES(key), modes.CTR(b"\x01" + nonce + b"\x00\x01")).encryptor()
    return enc.update(m) + enc.finalize()


@pytest.mark.parametrize("mic_len", [0, 4, 8, 16])
def test_ccm_matches_cryptography(ccm, mic_len):
    rng = random.Random(1000 + mic_len)
    for _ in range(150):
        key = rng.randbytes(16)
        nonce = rng.randbytes(13)
        a = rng.randbytes(rng.choice([0, 1, 14, 15, 16, 17, rng.randrange(0, 130)]))
        m = rng.randbytes(rng.choice([0, 1, 15, 16, 17, 32, rng.randrange(0, 130)]))
        if mic_len:
            want = AESCCM(key, tag_length=mic_len).encrypt(nonce, m, a)
        else:
            want = ctr_only(key, nonce, m)
        rc, out = ccm(key, nonce, a + m + bytes(mic_len), len(a), len(m), mic_len, False)
        assert rc == 0
        assert out == a + want, (len(a), len(m), mic_len)
        # open what cryptography sealed
        rc, out = ccm(key, nonce, a + want, len(a), len(m), mic_len, True)
        assert rc == 0 and out[:len(a) + len(m)] == a + m
        if mic_len:
            # any flipped bit in a, the ciphertext or the MIC: refused
            tampered = bytearray(a + want)
            bit = rng.randrange(len(tampered) * 8)
            tampered[bit // 8] ^= 1 << (bit % 8)
            rc, _ = ccm(key, nonce, bytes(tampered), len(a), len(m), mic_len, True)
            assert rc == -EBADMSG
            with pytest.raises(Exception):
                AESCCM(key, tag_length=mic_len).decrypt(nonce, bytes(tampered[len(a):]),
                                                        bytes(tampered[:len(a)]))
