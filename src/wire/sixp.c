/* 6P messages (RFC 8480 3.2, 3.3): parse, emit. */
#include "wire/sixp.h"

#include <string.h>

#include "core/byteorder.h"

/* Fixed part of each request body (after the 4-byte header), index = command:
 * Metadata and what follows it up to the cell lists or payload. */
static const uint8_t req_fixed[8] = {
    [SIXP_CMD_ADD] = 4, [SIXP_CMD_DELETE] = 4, [SIXP_CMD_RELOCATE] = 4,
    [SIXP_CMD_COUNT] = 3, [SIXP_CMD_LIST] = 8, [SIXP_CMD_SIGNAL] = 2, [SIXP_CMD_CLEAR] = 2,
};

static int is_cmd(uint8_t c)
{
    return c >= SIXP_CMD_ADD && c <= SIXP_CMD_CLEAR;
}

/* commands whose request and successful response carry cell lists */
static int has_cells(uint8_t c)
{
    return c == SIXP_CMD_ADD || c == SIXP_CMD_DELETE || c == SIXP_CMD_RELOCATE ||
           c == SIXP_CMD_LIST;
}

/* RFC 8480 3.3: a request's body by its command. The fixed part after
 * Metadata is a prefix of CellOptions(1) NumCells-or-Reserved(1) Offset(2)
 * MaxNumCells(2); ADD, DELETE, RELOCATE and SIGNAL have a variable part. */
static int parse_request(struct sixp_msg *m)
{
    const uint8_t *b = m->body;
    size_t n = m->body_len, fixed = req_fixed[m->code];
    if (n < fixed) {
        return -SIXP_ERR_TRUNCATED;
    }
    m->metadata = get_le16(b);
    if (fixed > 2) {
        m->cell_options = b[2];
    }
    if (m->code == SIXP_CMD_LIST) {
        m->offset = get_le16(b + 4);
        m->max_num_cells = get_le16(b + 6);
    } else if (fixed > 3) { /* ADD, DELETE, RELOCATE */
        m->num_cells = b[3];
        size_t rest = n - fixed, cells = rest / SIXP_CELL_LEN;
        if (rest % SIXP_CELL_LEN) {
            return -SIXP_ERR_LENGTH;
        }
        m->cells = b + fixed;
        m->n_cells = (uint16_t)cells;
        if (m->code == SIXP_CMD_RELOCATE) {
            /* the relocation list is exactly NumCells cells, the candidates follow */
            if (cells < m->num_cells) {
                return -SIXP_ERR_LENGTH;
            }
            m->n_cells = m->num_cells;
            m->cand = m->cells + (size_t)m->num_cells * SIXP_CELL_LEN;
            m->n_cand = (uint16_t)(cells - m->num_cells);
        }
        return 0;
    }
    if (m->code == SIXP_CMD_SIGNAL) {
        m->body += 2; /* the payload */
        m->body_len -= 2;
        return 0;
    }
    return n == fixed ? 0 : -SIXP_ERR_LENGTH;
}

int wren_sixp_parse(const uint8_t *buf, size_t len, struct sixp_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (len < SIXP_HDR_LEN) {
        return -SIXP_ERR_TRUNCATED;
    }
    if (len - SIXP_HDR_LEN > 0xffff) {
        return -SIXP_ERR_LENGTH;
    }
    m->version = buf[0] & 0x0f;
    m->type = (buf[0] >> 4) & 0x03;
    m->code = buf[1];
    m->sfid = buf[2];
    m->seqnum = buf[3];
    m->body = buf + SIXP_HDR_LEN;
    m->body_len = (uint16_t)(len - SIXP_HDR_LEN);
    if (m->version != SIXP_VERSION) {
        return -SIXP_ERR_VERSION;
    }
    switch (m->type) {
    case SIXP_TYPE_REQUEST:
        return is_cmd(m->code) ? parse_request(m) : -SIXP_ERR_CMD;
    case SIXP_TYPE_RESPONSE:
    case SIXP_TYPE_CONFIRMATION:
        return m->code < SIXP_RC_NUMOF ? 0 : -SIXP_ERR_RC;
    default:
        return -SIXP_ERR_TYPE;
    }
}

int wren_sixp_body_parse(struct sixp_msg *m, uint8_t cmd)
{
    if (!is_cmd(cmd)) {
        return -SIXP_ERR_CMD;
    }
    m->resp_cmd = cmd;
    m->cells = NULL;
    m->n_cells = 0;
    m->total = 0;
    if (m->code != SIXP_RC_SUCCESS && m->code != SIXP_RC_EOL) {
        return 0;
    }
    if (has_cells(cmd)) {
        if (m->body_len % SIXP_CELL_LEN) {
            return -SIXP_ERR_LENGTH;
        }
        m->cells = m->body;
        m->n_cells = m->body_len / SIXP_CELL_LEN;
        return 0;
    }
    if (cmd == SIXP_CMD_COUNT) {
        if (m->body_len != 2) {
            return -SIXP_ERR_LENGTH;
        }
        m->total = get_le16(m->body);
        return 0;
    }
    if (cmd == SIXP_CMD_CLEAR && m->body_len != 0) {
        return -SIXP_ERR_LENGTH;
    }
    return 0; /* SIGNAL: the payload is the body */
}

/* bytes of the body emit writes, or -SIXP_ERR_INVAL */
static long body_len(const struct sixp_msg *m)
{
    if (m->type == SIXP_TYPE_REQUEST) {
        if (!is_cmd(m->code)) {
            return -SIXP_ERR_INVAL;
        }
        long n = req_fixed[m->code];
        switch (m->code) {
        case SIXP_CMD_RELOCATE:
            if (m->n_cells != m->num_cells) {
                return -SIXP_ERR_INVAL;
            }
            n += (long)m->n_cand * SIXP_CELL_LEN;
            /* fall through */
        case SIXP_CMD_ADD:
        case SIXP_CMD_DELETE:
            return n + (long)m->n_cells * SIXP_CELL_LEN;
        case SIXP_CMD_SIGNAL:
            return n + m->body_len;
        default:
            return n;
        }
    }
    if (m->type != SIXP_TYPE_RESPONSE && m->type != SIXP_TYPE_CONFIRMATION) {
        return -SIXP_ERR_INVAL;
    }
    if (m->resp_cmd == 0) {
        return m->body_len;
    }
    if (!is_cmd(m->resp_cmd)) {
        return -SIXP_ERR_INVAL;
    }
    if (m->code != SIXP_RC_SUCCESS && m->code != SIXP_RC_EOL) {
        return 0;
    }
    if (has_cells(m->resp_cmd)) {
        return (long)m->n_cells * SIXP_CELL_LEN;
    }
    switch (m->resp_cmd) {
    case SIXP_CMD_COUNT:
        return 2;
    case SIXP_CMD_SIGNAL:
        return m->body_len;
    default:
        return 0;
    }
}

int wren_sixp_len(const struct sixp_msg *m)
{
    long n = body_len(m);
    if (n < 0) {
        return (int)n;
    }
    return n > 0xffff ? -SIXP_ERR_INVAL : (int)(SIXP_HDR_LEN + n);
}

static uint8_t *put(uint8_t *p, const uint8_t *src, size_t n)
{
    if (n) {
        memcpy(p, src, n);
    }
    return p + n;
}

int wren_sixp_emit(const struct sixp_msg *m, uint8_t *buf, size_t max)
{
    int len = wren_sixp_len(m);
    if (len < 0) {
        return len;
    }
    if ((size_t)len > max) {
        return -SIXP_ERR_NOBUFS;
    }
    uint8_t *p = buf;
    *p++ = (uint8_t)(SIXP_VERSION | (m->type & 0x03) << 4);
    *p++ = m->code;
    *p++ = m->sfid;
    *p++ = m->seqnum;
    uint8_t cmd = m->resp_cmd;
    if (m->type == SIXP_TYPE_REQUEST) {
        /* the fixed part (see parse_request), then the variable one */
        uint8_t fixed[8];
        cmd = m->code;
        put_le16(fixed, m->metadata);
        fixed[2] = m->cell_options;
        fixed[3] = cmd == SIXP_CMD_LIST ? 0 : m->num_cells; /* LIST: reserved */
        put_le16(fixed + 4, m->offset);
        put_le16(fixed + 6, m->max_num_cells);
        p = put(p, fixed, req_fixed[cmd]);
    }
    /* what wren_sixp_len() counted after that: a COUNT response's Total, a
     * cell list (RELOCATE: then the candidates), or the body as it is */
    size_t rest = (size_t)(buf + len - p), k = (size_t)m->n_cells * SIXP_CELL_LEN;
    if (cmd == SIXP_CMD_COUNT && rest == 2) {
        put_le16(p, m->total);
    } else if (has_cells(cmd)) {
        k = k < rest ? k : rest;
        put(put(p, m->cells, k), m->cand, rest - k);
    } else {
        put(p, m->body, rest);
    }
    return len;
}

const char *wren_sixp_cmd_name(uint8_t cmd)
{
    static const char *const names[] = { NULL, "ADD", "DELETE", "RELOCATE", "COUNT",
                                         "LIST", "SIGNAL", "CLEAR" };
    return cmd < sizeof(names) / sizeof(names[0]) ? names[cmd] : NULL;
}

const char *wren_sixp_rc_name(uint8_t rc)
{
    static const char *const names[SIXP_RC_NUMOF] = {
        "SUCCESS", "EOL", "ERR", "RESET", "ERR_VERSION", "ERR_SFID",
        "ERR_SEQNUM", "ERR_CELLLIST", "ERR_BUSY", "ERR_LOCKED",
    };
    return rc < SIXP_RC_NUMOF ? names[rc] : NULL;
}
