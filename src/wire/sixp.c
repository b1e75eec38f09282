/* 6P messages (RFC 8480 3.2, 3.3): parse, emit. */
#include "wire/sixp.h"

#include <stdbool.h>
#include <string.h>

#include "core/byteorder.h"

/* RFC 8480 3.3: what each command's messages carry, index = command. The
 * low nibble is the request's fixed part after the header: Metadata(2), then
 * a prefix of CellOptions(1) NumCells-or-Reserved(1) Offset(2)
 * MaxNumCells(2); the bits say what follows it in the request and in a
 * SUCCESS/EOL response (a COUNT response: exactly Total(2); CLEAR's: empty) */
enum {
    FIXED = 0x0f,
    REQ_CELLS = 0x10,  /* request: CellList (RELOCATE: RelocationCellList) */
    REQ_CAND = 0x20,   /* request: then CandidateCellList */
    PAYLOAD = 0x40,    /* request and response: the payload */
    RESP_CELLS = 0x80, /* response: CellList */
};
static const uint8_t shape[8] = {
    [SIXP_CMD_ADD] = 4 | REQ_CELLS | RESP_CELLS,
    [SIXP_CMD_DELETE] = 4 | REQ_CELLS | RESP_CELLS,
    [SIXP_CMD_RELOCATE] = 4 | REQ_CELLS | REQ_CAND | RESP_CELLS,
    [SIXP_CMD_COUNT] = 3,
    [SIXP_CMD_LIST] = 8 | RESP_CELLS,
    [SIXP_CMD_SIGNAL] = 2 | PAYLOAD,
    [SIXP_CMD_CLEAR] = 2,
};

static int is_cmd(uint8_t c)
{
    return c >= SIXP_CMD_ADD && c <= SIXP_CMD_CLEAR;
}

/* the cell list in @p p[@p n]: whole cells only */
static int cell_list(struct sixp_msg *m, const uint8_t *p, size_t n)
{
    if (n % SIXP_CELL_LEN) {
        return -SIXP_ERR_LENGTH;
    }
    m->cells = p;
    m->n_cells = (uint16_t)(n / SIXP_CELL_LEN);
    return 0;
}

/* RFC 8480 3.3: a request's body by its command: the fixed part (read from
 * its place), then cells or payload */
static int parse_request(struct sixp_msg *m)
{
    const uint8_t *b = m->body;
    unsigned sh = shape[m->code], fixed = sh & FIXED;
    if (m->body_len < fixed) {
        return -SIXP_ERR_TRUNCATED;
    }
    m->metadata = get_le16(b);
    if (fixed > 2) {
        m->cell_options = b[2];
    }
    if (fixed > 4) { /* LIST */
        m->offset = get_le16(b + 4);
        m->max_num_cells = get_le16(b + 6);
    }
    size_t rest = m->body_len - fixed;
    if (sh & PAYLOAD) { /* SIGNAL */
        m->body = b + fixed;
        m->body_len = (uint16_t)rest;
        return 0;
    }
    if (!(sh & REQ_CELLS)) {
        return rest ? -SIXP_ERR_LENGTH : 0;
    }
    m->num_cells = b[3];
    if (cell_list(m, b + fixed, rest) < 0) {
        return -SIXP_ERR_LENGTH;
    }
    if (sh & REQ_CAND) {
        /* the relocation list is exactly NumCells cells, the candidates follow */
        unsigned cells = m->n_cells;
        if (cells < m->num_cells) {
            return -SIXP_ERR_LENGTH;
        }
        m->n_cells = m->num_cells;
        m->cand = m->cells + (size_t)m->num_cells * SIXP_CELL_LEN;
        m->n_cand = (uint16_t)(cells - m->num_cells);
    }
    return 0;
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

static int rc_has_body(uint8_t rc)
{
    return rc == SIXP_RC_SUCCESS || rc == SIXP_RC_EOL;
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
    unsigned sh = shape[cmd];
    if (!rc_has_body(m->code) || (sh & PAYLOAD)) {
        return 0; /* SIGNAL: the payload is the body */
    }
    if (sh & RESP_CELLS) {
        return cell_list(m, m->body, m->body_len);
    }
    /* COUNT: Total; CLEAR: nothing */
    if (m->body_len != (cmd == SIXP_CMD_COUNT ? 2 : 0)) {
        return -SIXP_ERR_LENGTH;
    }
    if (m->body_len) {
        m->total = get_le16(m->body);
    }
    return 0;
}

/* The body emit writes, in three pieces: the fixed fields (written into
 * @p fixed), a cell list, then the candidates or the payload */
struct piece {
    const uint8_t *p;
    size_t n;
};

/* Lays out @p m's body in @p s[3]; returns the message's length, or
 * -SIXP_ERR_INVAL */
static int layout(const struct sixp_msg *m, uint8_t fixed[8], struct piece s[3])
{
    bool req = m->type == SIXP_TYPE_REQUEST;
    uint8_t cmd = req ? m->code : m->resp_cmd;
    memset(s, 0, 3 * sizeof(*s));
    s[0].p = fixed;
    s[1].p = m->cells;
    s[2].p = m->body;
    if (m->type > SIXP_TYPE_CONFIRMATION || (cmd && !is_cmd(cmd)) || (req && !cmd)) {
        return -SIXP_ERR_INVAL;
    }
    unsigned sh = shape[cmd];
    if (req) {
        put_le16(fixed, m->metadata);
        fixed[2] = m->cell_options;
        fixed[3] = cmd == SIXP_CMD_LIST ? 0 : m->num_cells; /* LIST: reserved */
        put_le16(fixed + 4, m->offset);
        put_le16(fixed + 6, m->max_num_cells);
        s[0].n = sh & FIXED;
        sh &= ~RESP_CELLS;
    } else if (cmd == 0) {
        sh = PAYLOAD; /* the body as it is */
    } else if (!rc_has_body(m->code)) {
        sh = 0;
    } else {
        sh &= RESP_CELLS | PAYLOAD;
        if (cmd == SIXP_CMD_COUNT) {
            put_le16(fixed, m->total);
            s[0].n = 2;
        }
    }
    if (sh & (REQ_CELLS | RESP_CELLS)) {
        s[1].n = (size_t)m->n_cells * SIXP_CELL_LEN;
    }
    if (sh & REQ_CAND) {
        if (m->n_cells != m->num_cells) {
            return -SIXP_ERR_INVAL;
        }
        s[2].p = m->cand;
        s[2].n = (size_t)m->n_cand * SIXP_CELL_LEN;
    }
    if (sh & PAYLOAD) {
        s[2].n = m->body_len;
    }
    size_t n = s[0].n + s[1].n + s[2].n;
    return n > 0xffff ? -SIXP_ERR_INVAL : (int)(SIXP_HDR_LEN + n);
}

int wren_sixp_len(const struct sixp_msg *m)
{
    uint8_t fixed[8];
    struct piece s[3];
    return layout(m, fixed, s);
}

int wren_sixp_emit(const struct sixp_msg *m, uint8_t *buf, size_t max)
{
    uint8_t fixed[8];
    struct piece s[3];
    int len = layout(m, fixed, s);
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
    for (unsigned i = 0; i < 3; i++) {
        if (s[i].n) {
            memcpy(p, s[i].p, s[i].n);
            p += s[i].n;
        }
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
