/* anthro-v1 dissector for Wireshark 4.0 (epan plugin).
 *
 * The protocol is /work/shared/spec/anthro-v1.md (a copy ships as the project's spec): a 128-byte
 * negotiation blob after an "ANTHRO01" preface or in TLS extension 0xFFA1, then AEAD frames with
 * a 16-byte header. Field abbreviations follow the workbench's field tree
 * (core/protocol/describe.cpp) so a filter such as "anthro.type == 3" means what the workbench's
 * frame view shows.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <epan/conversation.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/prefs-int.h>
#include <epan/dissectors/packet-tcp.h>
#include <gcrypt.h>
#include <wsutil/wsjson.h>
#include <ws_symbol_export.h>

#define ANTHRO_MAGIC "ANTHRO01"
#define MAGIC_LEN 8
#define BLOB_LEN 128
#define PREFACE_LEN (MAGIC_LEN + BLOB_LEN)
#define HEADER_LEN 16
#define NONCE_LEN 12
#define TAG_LEN 16
#define MIN_PAYLOAD (NONCE_LEN + 4 + TAG_LEN)

#define AEAD_AES_256_GCM 1
#define AEAD_CHACHA20_POLY1305 2

enum { TYPE_REQUEST = 1, TYPE_RESPONSE, TYPE_STREAM_TOKEN, TYPE_CANCEL, TYPE_ERROR };

static int proto_anthro = -1;

static int hf_magic = -1;
static int hf_blob_version = -1;
static int hf_role = -1;
static int hf_max_streams = -1;
static int hf_default_max_tokens = -1;
static int hf_flags = -1;
static int hf_flags_streaming = -1;
static int hf_flags_speculative = -1;
static int hf_flags_caching = -1;
static int hf_flags_unknown = -1;
static int hf_aead = -1;
static int hf_aead_aes = -1;
static int hf_aead_chacha = -1;
static int hf_ring_buffer_kib = -1;
static int hf_blob_reserved = -1;
static int hf_connection_token = -1;
static int hf_x25519_public = -1;
static int hf_random = -1;
static int hf_version = -1;
static int hf_type = -1;
static int hf_reserved = -1;
static int hf_payload_length = -1;
static int hf_nonce = -1;
static int hf_ciphertext = -1;
static int hf_tag = -1;
static int hf_decrypted = -1;
static int hf_suite = -1;
static int hf_stream_id = -1;
static int hf_json = -1;
static int hf_token_index = -1;
static int hf_token_count = -1;
static int hf_text = -1;
static int hf_text_bytes = -1;
static int hf_reason = -1;
static int hf_code = -1;
static int hf_retry_after_ms = -1;
static int hf_message = -1;

static gint ett_anthro = -1;
static gint ett_blob = -1;
static gint ett_header = -1;
static gint ett_flags = -1;
static gint ett_aead = -1;
static gint ett_body = -1;

/* One expert field per refusal reason of the spec (§2 blobs, §4 frames), so a filter such as
 * "anthro.refused.authentication" finds every frame refused for that reason. */
static expert_field ei_blob_size = EI_INIT;
static expert_field ei_blob_version = EI_INIT;
static expert_field ei_blob_role = EI_INIT;
static expert_field ei_blob_reserved = EI_INIT;
static expert_field ei_blob_token = EI_INIT;
static expert_field ei_blob_max_streams = EI_INIT;
static expert_field ei_blob_default_max_tokens = EI_INIT;
static expert_field ei_blob_flags = EI_INIT;
static expert_field ei_blob_aead = EI_INIT;
static expert_field ei_blob_ring = EI_INIT;
static expert_field ei_blob_token_echo = EI_INIT;
static expert_field ei_version = EI_INIT;
static expert_field ei_type = EI_INIT;
static expert_field ei_flags = EI_INIT;
static expert_field ei_reserved = EI_INIT;
static expert_field ei_length = EI_INIT;
static expert_field ei_token = EI_INIT;
static expert_field ei_incomplete = EI_INIT;
static expert_field ei_authentication = EI_INIT;
static expert_field ei_body = EI_INIT;
static expert_field ei_no_key = EI_INIT;
static expert_field ei_invalid_utf8 = EI_INIT;
static expert_field ei_redacted = EI_INIT;

static dissector_handle_t anthro_handle;
static dissector_handle_t anthro_extension_handle;

static const char* pref_keylog_file = "";

static const value_string type_names[] = {
    {TYPE_REQUEST, "REQUEST"},     {TYPE_RESPONSE, "RESPONSE"}, {TYPE_STREAM_TOKEN, "STREAM_TOKEN"},
    {TYPE_CANCEL, "CANCEL"},       {TYPE_ERROR, "ERROR"},       {0, NULL}};
static const value_string role_names[] = {{1, "offer (client)"}, {2, "answer (server)"}, {0, NULL}};
static const value_string reason_names[] = {{0, "user"}, {1, "deadline"}, {2, "shutdown"}, {0, NULL}};
static const value_string code_names[] = {
    {1, "protocol error"}, {400, "bad request"}, {401, "unauthorized"},      {404, "unknown model"},
    {409, "context migrated"}, {413, "request too large"}, {429, "overloaded"}, {500, "internal"},
    {503, "unavailable"}, {0, NULL}};
static const value_string suite_names[] = {
    {AEAD_AES_256_GCM, "AES-256-GCM"}, {AEAD_CHACHA20_POLY1305, "ChaCha20-Poly1305"}, {0, NULL}};

/* ---------------------------------------------------------------- key log */

typedef struct {
    guint8 c2s[32];
    guint8 s2c[32];
} frame_keys;

/* token (guint64*) -> GArray of frame_keys: the spec lets several lines share a token and asks
 * a decoder to try each. */
static GHashTable* keys_by_token;
static char* loaded_path;
static time_t loaded_mtime;
static off_t loaded_size;

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Exactly len hex digits into len/2 bytes; FALSE for anything else. */
static gboolean parse_hex(const char* s, size_t len, guint8* out) {
    for (size_t i = 0; i < len; i += 2) {
        int hi = hex_value((unsigned char)s[i]), lo = hex_value((unsigned char)s[i + 1]);
        if (hi < 0 || lo < 0) return FALSE;
        out[i / 2] = (guint8)(hi << 4 | lo);
    }
    return TRUE;
}

static void free_key_array(gpointer p) { g_array_free((GArray*)p, TRUE); }

/* One line of a key log: "ANTHRO_V1 <16 hex> <64 hex> <64 hex>", words split on spaces or tabs
 * as the workbench's own parser does (core/crypto/keylog.cpp). Any other line is not ours. */
static void parse_keylog_line(char* line) {
    char* words[5];
    int n = 0;
    for (char* p = line; *p && n < 5;) {
        while (*p == ' ' || *p == '\t' || *p == '\r') *p++ = '\0';
        if (!*p) break;
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r') ++p;
    }
    if (n != 4 || strcmp(words[0], "ANTHRO_V1") != 0) return;
    if (strlen(words[1]) != 16 || strlen(words[2]) != 64 || strlen(words[3]) != 64) return;
    guint8 token_bytes[8];
    frame_keys keys;
    if (!parse_hex(words[1], 16, token_bytes) || !parse_hex(words[2], 64, keys.c2s) ||
        !parse_hex(words[3], 64, keys.s2c))
        return;
    guint64 token = 0;
    for (int i = 0; i < 8; ++i) token = token << 8 | token_bytes[i];
    GArray* list = (GArray*)g_hash_table_lookup(keys_by_token, &token);
    if (!list) {
        guint64* key = g_new(guint64, 1);
        *key = token;
        list = g_array_new(FALSE, FALSE, sizeof(frame_keys));
        g_hash_table_insert(keys_by_token, key, list);
    }
    g_array_append_val(list, keys);
}

static const char* keylog_path(void) {
    if (pref_keylog_file && *pref_keylog_file) return pref_keylog_file;
    module_t* tls = prefs_find_module("tls");
    pref_t* pref = tls ? prefs_find_preference(tls, "keylog_file") : NULL;
    return pref ? prefs_get_string_value(pref, pref_current) : NULL;
}

/* Reads the key log again when its path, size or mtime changed: the workbench's clients append
 * to the file while a live capture runs, as browsers do for tls.keylog_file. */
static void refresh_keys(void) {
    const char* path = keylog_path();
    struct stat st;
    gboolean have = path && *path && stat(path, &st) == 0;
    if (have && loaded_path && strcmp(path, loaded_path) == 0 && st.st_mtime == loaded_mtime &&
        st.st_size == loaded_size)
        return;
    if (!have && !loaded_path) return;
    g_hash_table_remove_all(keys_by_token);
    g_free(loaded_path);
    loaded_path = NULL;
    if (!have) return;
    loaded_path = g_strdup(path);
    loaded_mtime = st.st_mtime;
    loaded_size = st.st_size;
    FILE* f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len && line[len - 1] != '\n' && !feof(f)) {
            /* Longer than any key line can be: skip the rest of it. */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n') {
            }
            continue;
        }
        if (len && line[len - 1] == '\n') line[len - 1] = '\0';
        parse_keylog_line(line);
    }
    fclose(f);
}

/* ---------------------------------------------------------------- conversation state */

typedef struct {
    gboolean have_offer, have_answer;
    guint8 offer[BLOB_LEN];
    guint8 answer[BLOB_LEN];
    address client_addr;
    guint32 client_port;
} anthro_conv;

static anthro_conv* get_conv(packet_info* pinfo) {
    conversation_t* conv = find_or_create_conversation(pinfo);
    anthro_conv* c = (anthro_conv*)conversation_get_proto_data(conv, proto_anthro);
    if (!c) {
        c = wmem_new0(wmem_file_scope(), anthro_conv);
        conversation_add_proto_data(conv, proto_anthro, c);
    }
    return c;
}

/* 1 client to server, 0 server to client, -1 unknown (no offer seen: the capture started late
 * or the offer travelled in the TLS extension). */
static int direction(const anthro_conv* c, packet_info* pinfo) {
    if (!c->have_offer) return -1;
    return addresses_equal(&pinfo->src, &c->client_addr) && pinfo->srcport == c->client_port;
}

static guint64 blob_token(const guint8* b) {
    guint64 t = 0;
    for (int i = 16; i < 24; ++i) t = t << 8 | b[i];
    return t;
}

/* ---------------------------------------------------------------- negotiation blob */

static gboolean all_zero(const guint8* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return FALSE;
    return TRUE;
}

static int popcount8(guint8 v) {
    int n = 0;
    for (; v; v &= (guint8)(v - 1)) ++n;
    return n;
}

/* The spec's blob checks in its order (§2); reports the first failing reason. The X25519
 * `zero-shared` check needs a private key, which a passive observer of a key log lacks. */
static void check_blob(packet_info* pinfo, proto_item* item, const guint8* b, const guint8* offer) {
    gboolean answer = offer != NULL;
    guint16 max_streams = (guint16)(b[2] << 8 | b[3]);
    guint32 default_max = (guint32)b[4] << 24 | (guint32)b[5] << 16 | (guint32)b[6] << 8 | b[7];
    guint16 ring = (guint16)(b[10] << 8 | b[11]);
    if (b[0] != 1) {
        expert_add_info_format(pinfo, item, &ei_blob_version, "blob refused: version (%u, not 1)", b[0]);
    } else if (b[1] != (answer ? 2 : 1)) {
        expert_add_info_format(pinfo, item, &ei_blob_role, "blob refused: role (%u in an %s)", b[1],
                               answer ? "answer" : "offer");
    } else if (!all_zero(b + 12, 4) || !all_zero(b + 88, 40)) {
        expert_add_info(pinfo, item, &ei_blob_reserved);
    } else if (blob_token(b) == 0) {
        expert_add_info(pinfo, item, &ei_blob_token);
    } else if (max_streams == 0 || (answer && max_streams > (offer[2] << 8 | offer[3]))) {
        expert_add_info(pinfo, item, &ei_blob_max_streams);
    } else if (default_max == 0) {
        expert_add_info(pinfo, item, &ei_blob_default_max_tokens);
    } else if ((b[8] & 0xf8) || (answer && (b[8] & ~offer[8]))) {
        expert_add_info(pinfo, item, &ei_blob_flags);
    } else if (answer ? (popcount8(b[9]) != 1 || (b[9] & ~offer[9])) : (b[9] == 0 || (b[9] & 0xfc))) {
        expert_add_info(pinfo, item, &ei_blob_aead);
    } else if (answer ? ring != (offer[10] << 8 | offer[11]) : ring < 64) {
        expert_add_info(pinfo, item, &ei_blob_ring);
    } else if (answer && blob_token(b) != blob_token(offer)) {
        expert_add_info(pinfo, item, &ei_blob_token_echo);
    }
}

static int* const flag_fields[] = {&hf_flags_streaming, &hf_flags_speculative, &hf_flags_caching,
                                   &hf_flags_unknown, NULL};
static int* const aead_fields[] = {&hf_aead_aes, &hf_aead_chacha, NULL};

/* Records a blob in the connection's state on the first pass: the offer fixes which side is the
 * client, the answer the token and suite that frames are checked and opened with. */
static void remember_blob(packet_info* pinfo, anthro_conv* c, const guint8* blob, gboolean is_offer) {
    if (PINFO_FD_VISITED(pinfo)) return;
    if (is_offer && !c->have_offer) {
        c->have_offer = TRUE;
        memcpy(c->offer, blob, BLOB_LEN);
        copy_address_wmem(wmem_file_scope(), &c->client_addr, &pinfo->src);
        c->client_port = pinfo->srcport;
    } else if (!is_offer && c->have_offer && !c->have_answer) {
        c->have_answer = TRUE;
        memcpy(c->answer, blob, BLOB_LEN);
    }
}

/* The 128-byte blob at offset of tvb, wherever it travelled (preface or TLS extension, §1). */
static void dissect_blob(tvbuff_t* tvb, int o, packet_info* pinfo, proto_tree* tree, anthro_conv* c,
                         gboolean is_answer) {
    guint8 blob[BLOB_LEN];
    tvb_memcpy(tvb, blob, o, BLOB_LEN);
    remember_blob(pinfo, c, blob, !is_answer);
    proto_item* ti;
    proto_tree* bt = proto_tree_add_subtree_format(tree, tvb, o, BLOB_LEN, ett_blob, &ti, "Negotiation blob (%s)",
                                                   is_answer ? "answer" : "offer");
    proto_tree_add_item(bt, hf_blob_version, tvb, o, 1, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_role, tvb, o + 1, 1, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_max_streams, tvb, o + 2, 2, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_default_max_tokens, tvb, o + 4, 4, ENC_BIG_ENDIAN);
    proto_tree_add_bitmask(bt, tvb, o + 8, hf_flags, ett_flags, flag_fields, ENC_BIG_ENDIAN);
    proto_tree_add_bitmask(bt, tvb, o + 9, hf_aead, ett_aead, aead_fields, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_ring_buffer_kib, tvb, o + 10, 2, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_blob_reserved, tvb, o + 12, 4, ENC_NA);
    proto_tree_add_item(bt, hf_connection_token, tvb, o + 16, 8, ENC_BIG_ENDIAN);
    proto_tree_add_item(bt, hf_x25519_public, tvb, o + 24, 32, ENC_NA);
    proto_tree_add_item(bt, hf_random, tvb, o + 56, 32, ENC_NA);
    proto_tree_add_item(bt, hf_blob_reserved, tvb, o + 88, 40, ENC_NA);
    check_blob(pinfo, ti, blob, is_answer && c->have_offer ? c->offer : NULL);
    col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "anthro-v1 %s token %016" G_GINT64_MODIFIER "x",
                        is_answer ? "answer" : "offer", blob_token(blob));
}

static void dissect_preface(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, anthro_conv* c) {
    proto_item* ti = proto_tree_add_item(tree, hf_magic, tvb, 0, MAGIC_LEN, ENC_ASCII);
    if (tvb_captured_length(tvb) < PREFACE_LEN) {
        expert_add_info_format(pinfo, ti, &ei_incomplete,
                               "refused: incomplete (preface of %u bytes, not %u)", tvb_captured_length(tvb),
                               PREFACE_LEN);
        return;
    }
    /* The first preface of a connection is the client's; the other side's is the answer. */
    gboolean is_answer = c->have_offer && direction(c, pinfo) == 0;
    dissect_blob(tvb, MAGIC_LEN, pinfo, tree, c, is_answer);
}

/* ---------------------------------------------------------------- TLS extension 0xFFA1 */

#define ANTHRO_TLS_EXTENSION 0xFFA1
#define TLS_CLIENT_HELLO 1

static int hf_tls_extension_type = -1;
static int hf_tls_extension_data = -1;
static int hf_tls_handshake_type = -1;

/* The field among fields in the same data source as near and starting at start, or NULL. */
static field_info* field_at(GPtrArray* fields, const field_info* near, gint start) {
    for (guint i = 0; fields && i < fields->len; ++i) {
        field_info* f = (field_info*)g_ptr_array_index(fields, i);
        if (f->ds_tvb == near->ds_tvb && f->start == start) return f;
    }
    return NULL;
}

/* The handshake message an extension sits in: the last handshake type before it. */
static guint32 handshake_of(GPtrArray* types, const field_info* ext) {
    const field_info* best = NULL;
    for (guint i = 0; types && i < types->len; ++i) {
        const field_info* f = (const field_info*)g_ptr_array_index(types, i);
        if (f->ds_tvb == ext->ds_tvb && f->start < ext->start && (!best || f->start > best->start)) best = f;
    }
    return best ? fvalue_get_uinteger((fvalue_t*)&best->value) : 0;
}

/* Wireshark's TLS dissector shows 0xFFA1 as an unknown extension (type, length, data): this
 * postdissector finds those fields in the tree and dissects the blob in their bytes, an offer in a
 * ClientHello and an answer in a ServerHello (TLS 1.2) or EncryptedExtensions (TLS 1.3, visible
 * once TLS is decrypted). */
static int dissect_anthro_tls_extension(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data _U_) {
    GPtrArray* types = tree ? proto_get_finfo_ptr_array(tree, hf_tls_extension_type) : NULL;
    if (!types) return 0;
    GPtrArray* datas = proto_get_finfo_ptr_array(tree, hf_tls_extension_data);
    GPtrArray* handshakes = proto_get_finfo_ptr_array(tree, hf_tls_handshake_type);
    for (guint i = 0; i < types->len; ++i) {
        field_info* type = (field_info*)g_ptr_array_index(types, i);
        if (fvalue_get_uinteger(&type->value) != ANTHRO_TLS_EXTENSION) continue;
        field_info* body = field_at(datas, type, type->start + 4);
        gint len = body ? body->length : 0;
        gboolean is_answer = handshake_of(handshakes, type) != TLS_CLIENT_HELLO;
        proto_item* root = proto_tree_add_item(tree, proto_anthro, type->ds_tvb, type->start, 4 + len, ENC_NA);
        proto_item_append_text(root, ", TLS extension 0x%04X", ANTHRO_TLS_EXTENSION);
        proto_tree* at = proto_item_add_subtree(root, ett_anthro);
        if (len != BLOB_LEN) {
            expert_add_info_format(pinfo, root, &ei_blob_size, "blob refused: size (%d bytes, not %d)", len, BLOB_LEN);
            continue;
        }
        dissect_blob(body->ds_tvb, body->start, pinfo, at, get_conv(pinfo), is_answer);
    }
    return tvb_captured_length(tvb);
}

/* ---------------------------------------------------------------- frames */

/* AEAD open per §4: nonce = the 12 bytes after the header, AAD = the 16 header bytes. */
static gboolean aead_open(int suite, const guint8* key, const guint8* header, const guint8* nonce,
                          const guint8* ct, size_t ct_len, const guint8* tag, guint8* out) {
    gcry_cipher_hd_t h;
    int algo = suite == AEAD_AES_256_GCM ? GCRY_CIPHER_AES256 : GCRY_CIPHER_CHACHA20;
    int mode = suite == AEAD_AES_256_GCM ? GCRY_CIPHER_MODE_GCM : GCRY_CIPHER_MODE_POLY1305;
    if (gcry_cipher_open(&h, algo, mode, 0)) return FALSE;
    gboolean ok = !gcry_cipher_setkey(h, key, 32) && !gcry_cipher_setiv(h, nonce, NONCE_LEN) &&
                  !gcry_cipher_authenticate(h, header, HEADER_LEN) &&
                  !gcry_cipher_decrypt(h, out, ct_len, ct, ct_len) && !gcry_cipher_checktag(h, tag, TAG_LEN);
    gcry_cipher_close(h);
    return ok;
}

/* A REQUEST's api_key is a secret (§5): its string value is masked in place, wherever it sits.
 * Member names are compared after unescaping, so "api_\u006bey" is caught too. A value that
 * is not a string cannot be masked safely on its own, so then the whole text is. */
static void redact_api_key(guint8* s, size_t n, gboolean* redacted) {
    size_t i = 0;
    while (i < n) {
        if (s[i] != '"') {
            ++i;
            continue;
        }
        char name[16];
        size_t nl = 0;
        gboolean fits = TRUE;
        size_t j = i + 1;
        while (j < n && s[j] != '"') {
            int ch = s[j];
            if (ch == '\\' && j + 1 < n) {
                if (s[j + 1] == 'u' && j + 5 < n) {
                    int v = 0;
                    for (int k = 2; k < 6; ++k) {
                        int h = hex_value(s[j + k]);
                        v = h < 0 ? -1 : (v < 0 ? -1 : v * 16 + h);
                    }
                    ch = v > 0 && v < 128 ? v : 0x80;
                    j += 6;
                } else {
                    ch = s[j + 1];
                    j += 2;
                }
            } else {
                ++j;
            }
            if (nl < sizeof name - 1) name[nl++] = (char)ch;
            else fits = FALSE;
        }
        name[nl] = '\0';
        size_t end = j; /* closing quote, or n */
        size_t k = end + 1;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r')) ++k;
        if (!(fits && k < n && s[k] == ':' && strcmp(name, "api_key") == 0)) {
            i = end + 1;
            continue;
        }
        ++k;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r')) ++k;
        *redacted = TRUE;
        if (k >= n || s[k] != '"') {
            memset(s, '*', n);
            return;
        }
        for (++k; k < n && s[k] != '"'; ++k) {
            if (s[k] == '\\' && k + 1 < n) s[k++] = '*';
            s[k] = '*';
        }
        i = k + 1;
    }
}

static void dissect_body(tvbuff_t* ptvb, packet_info* pinfo, proto_tree* tree, proto_item* body_item, guint8 type) {
    guint len = tvb_reported_length(ptvb);
    static const guint minimum[] = {0, 6, 6, 10, 6, 10};
    if (len < minimum[type]) {
        expert_add_info_format(pinfo, body_item, &ei_body, "refused: body (%s plaintext of %u bytes, below %u)",
                               val_to_str_const(type, type_names, "?"), len, minimum[type]);
        if (len < 4) return;
    }
    guint32 stream_id;
    proto_tree_add_item_ret_uint(tree, hf_stream_id, ptvb, 0, 4, ENC_BIG_ENDIAN, &stream_id);
    col_append_fstr(pinfo->cinfo, COL_INFO, " stream %u", stream_id);
    if (len < minimum[type]) return;
    switch (type) {
        case TYPE_REQUEST:
        case TYPE_RESPONSE: {
            proto_item* ji = proto_tree_add_item(tree, hf_json, ptvb, 4, len - 4, ENC_UTF_8);
            if (!json_validate(tvb_get_ptr(ptvb, 4, len - 4), len - 4))
                expert_add_info_format(pinfo, ji, &ei_body, "refused: body (not JSON)");
            break;
        }
        case TYPE_STREAM_TOKEN: {
            guint32 index, count;
            proto_tree_add_item_ret_uint(tree, hf_token_index, ptvb, 4, 4, ENC_BIG_ENDIAN, &index);
            proto_tree_add_item_ret_uint(tree, hf_token_count, ptvb, 8, 2, ENC_BIG_ENDIAN, &count);
            const guint8* text = tvb_get_ptr(ptvb, 10, len - 10);
            if (g_utf8_validate((const gchar*)text, len - 10, NULL)) {
                proto_tree_add_item(tree, hf_text, ptvb, 10, len - 10, ENC_UTF_8);
                col_append_fstr(pinfo->cinfo, COL_INFO, " token %u \"%s\"", index,
                                tvb_format_text(pinfo->pool, ptvb, 10, len - 10));
            } else {
                /* §5: invalid UTF-8 is kept as raw bytes and reported, never refused. */
                proto_item* ti = proto_tree_add_item(tree, hf_text_bytes, ptvb, 10, len - 10, ENC_NA);
                expert_add_info(pinfo, ti, &ei_invalid_utf8);
                col_append_fstr(pinfo->cinfo, COL_INFO, " token %u (invalid UTF-8)", index);
            }
            if (count == 0) expert_add_info_format(pinfo, body_item, &ei_body, "refused: body (token_count 0)");
            break;
        }
        case TYPE_CANCEL:
            proto_tree_add_item(tree, hf_reason, ptvb, 4, 2, ENC_BIG_ENDIAN);
            break;
        case TYPE_ERROR: {
            guint32 code;
            proto_tree_add_item_ret_uint(tree, hf_code, ptvb, 4, 2, ENC_BIG_ENDIAN, &code);
            proto_tree_add_item(tree, hf_retry_after_ms, ptvb, 6, 4, ENC_BIG_ENDIAN);
            proto_tree_add_item(tree, hf_message, ptvb, 10, len - 10, ENC_UTF_8);
            col_append_fstr(pinfo->cinfo, COL_INFO, " code %u", code);
            break;
        }
    }
}

static void dissect_frame(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, proto_item* root, anthro_conv* c) {
    guint captured = tvb_captured_length(tvb);
    guint8 version = tvb_get_guint8(tvb, 0), type = tvb_get_guint8(tvb, 1), flags = tvb_get_guint8(tvb, 2),
           reserved = tvb_get_guint8(tvb, 3);
    guint32 payload_length = tvb_get_ntohl(tvb, 4);
    guint64 token = tvb_get_ntoh64(tvb, 8);

    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", val_to_str(type, type_names, "type %u"));
    proto_item_append_text(root, ", %s", val_to_str(type, type_names, "type %u"));

    proto_tree* ht = proto_tree_add_subtree(tree, tvb, 0, HEADER_LEN, ett_header, NULL, "Header");
    proto_item* vi = proto_tree_add_item(ht, hf_version, tvb, 0, 1, ENC_BIG_ENDIAN);
    proto_item* ti = proto_tree_add_item(ht, hf_type, tvb, 1, 1, ENC_BIG_ENDIAN);
    proto_item* fi = proto_tree_add_bitmask(ht, tvb, 2, hf_flags, ett_flags, flag_fields, ENC_BIG_ENDIAN);
    proto_item* ri = proto_tree_add_item(ht, hf_reserved, tvb, 3, 1, ENC_BIG_ENDIAN);
    proto_item* li = proto_tree_add_item(ht, hf_payload_length, tvb, 4, 4, ENC_BIG_ENDIAN);
    proto_item* ki = proto_tree_add_item(ht, hf_connection_token, tvb, 8, 8, ENC_BIG_ENDIAN);

    /* The header checks in the spec's order (§4): only the first failure is the reason. */
    gboolean known = c->have_answer;
    if (version != 1) {
        expert_add_info_format(pinfo, vi, &ei_version, "refused: version (%u, not 1)", version);
        return;
    }
    if (type < TYPE_REQUEST || type > TYPE_ERROR) {
        expert_add_info_format(pinfo, ti, &ei_type, "refused: type (unknown value %u)", type);
        return;
    }
    if ((flags & 0xf8) || (known && (flags & ~c->answer[8]))) {
        expert_add_info_format(pinfo, fi, &ei_flags, "refused: flags (0x%02x)", flags);
        return;
    }
    if (reserved != 0) {
        expert_add_info(pinfo, ri, &ei_reserved);
        return;
    }
    if ((payload_length >> 24) != 0 || payload_length < MIN_PAYLOAD) {
        expert_add_info_format(pinfo, li, &ei_length,
                               "refused: length (%u); the rest of this direction cannot be framed", payload_length);
        return;
    }
    if (known && token != blob_token(c->answer)) {
        expert_add_info_format(pinfo, ki, &ei_token, "refused: token (not the negotiated %016" G_GINT64_MODIFIER "x)",
                               blob_token(c->answer));
        return;
    }
    guint total = HEADER_LEN + payload_length;
    if (captured < total) {
        expert_add_info_format(pinfo, root, &ei_incomplete, "refused: incomplete (%u of %u bytes)", captured, total);
        return;
    }
    guint ct_len = payload_length - NONCE_LEN - TAG_LEN;
    proto_tree_add_item(tree, hf_nonce, tvb, HEADER_LEN, NONCE_LEN, ENC_NA);
    proto_item* ci = proto_tree_add_item(tree, hf_ciphertext, tvb, HEADER_LEN + NONCE_LEN, ct_len, ENC_NA);
    proto_tree_add_item(tree, hf_tag, tvb, total - TAG_LEN, TAG_LEN, ENC_NA);

    refresh_keys();
    GArray* keys = (GArray*)g_hash_table_lookup(keys_by_token, &token);
    if (!keys) {
        expert_add_info(pinfo, ci, &ei_no_key);
        col_append_str(pinfo->cinfo, COL_INFO, " (no key)");
        return;
    }
    const guint8* header = tvb_get_ptr(tvb, 0, HEADER_LEN);
    const guint8* nonce = tvb_get_ptr(tvb, HEADER_LEN, NONCE_LEN);
    const guint8* ct = tvb_get_ptr(tvb, HEADER_LEN + NONCE_LEN, ct_len);
    const guint8* tag = tvb_get_ptr(tvb, total - TAG_LEN, TAG_LEN);
    guint8* plain = (guint8*)wmem_alloc(pinfo->pool, ct_len);
    int dir = direction(c, pinfo);
    /* The answer names the suite; without it (§7) AES-256-GCM is tried first, then ChaCha20. */
    int suites[2] = {AEAD_AES_256_GCM, AEAD_CHACHA20_POLY1305};
    int nsuites = 2;
    if (c->have_answer && (c->answer[9] == AEAD_AES_256_GCM || c->answer[9] == AEAD_CHACHA20_POLY1305)) {
        suites[0] = c->answer[9];
        nsuites = 1;
    }
    int used = 0;
    for (guint k = 0; k < keys->len && !used; ++k) {
        const frame_keys* fk = &g_array_index(keys, frame_keys, k);
        for (int s = 0; s < nsuites && !used; ++s) {
            if (dir != 0 && aead_open(suites[s], fk->c2s, header, nonce, ct, ct_len, tag, plain)) used = suites[s];
            else if (dir != 1 && aead_open(suites[s], fk->s2c, header, nonce, ct, ct_len, tag, plain)) used = suites[s];
        }
    }
    if (!used) {
        expert_add_info(pinfo, ci, &ei_authentication);
        col_append_str(pinfo->cinfo, COL_INFO, " (authentication failed)");
        return;
    }
    gboolean redacted = FALSE;
    if (type == TYPE_REQUEST && ct_len > 4) redact_api_key(plain + 4, ct_len - 4, &redacted);
    tvbuff_t* ptvb = tvb_new_child_real_data(tvb, plain, ct_len, ct_len);
    add_new_data_source(pinfo, ptvb, "Decrypted anthro-v1");
    proto_item* di = proto_tree_add_boolean(tree, hf_decrypted, tvb, HEADER_LEN + NONCE_LEN, ct_len, TRUE);
    proto_item_set_generated(di);
    di = proto_tree_add_uint(tree, hf_suite, tvb, 0, 0, (guint32)used);
    proto_item_set_generated(di);
    proto_item* bi;
    proto_tree* bt = proto_tree_add_subtree(tree, ptvb, 0, ct_len, ett_body, &bi, "Body");
    if (redacted) expert_add_info(pinfo, bi, &ei_redacted);
    dissect_body(ptvb, pinfo, bt, bi, type);
}

static int dissect_anthro_pdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data _U_) {
    col_set_str(pinfo->cinfo, COL_PROTOCOL, "anthro-v1");
    proto_item* root = proto_tree_add_item(tree, proto_anthro, tvb, 0, -1, ENC_NA);
    proto_tree* at = proto_item_add_subtree(root, ett_anthro);
    anthro_conv* c = get_conv(pinfo);
    if (tvb_captured_length(tvb) >= MAGIC_LEN && tvb_memeql(tvb, 0, (const guint8*)ANTHRO_MAGIC, MAGIC_LEN) == 0)
        dissect_preface(tvb, pinfo, at, c);
    else
        dissect_frame(tvb, pinfo, at, root, c);
    return tvb_captured_length(tvb);
}

/* A PDU is the 136-byte preface or a frame. A frame's version byte is 0x01, never the 'A' the
 * preface starts with, so the first byte tells them apart. A length the spec refuses cannot
 * frame anything: the rest of the data becomes one PDU that carries the refusal. */
static guint get_anthro_pdu_len(packet_info* pinfo _U_, tvbuff_t* tvb, int offset, void* data _U_) {
    if (tvb_memeql(tvb, offset, (const guint8*)ANTHRO_MAGIC, MAGIC_LEN) == 0) return PREFACE_LEN;
    guint32 payload_length = tvb_get_ntohl(tvb, offset + 4);
    if ((payload_length >> 24) != 0 || payload_length < MIN_PAYLOAD)
        return (guint)tvb_reported_length_remaining(tvb, offset);
    return HEADER_LEN + payload_length;
}

static int dissect_anthro(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
    tcp_dissect_pdus(tvb, pinfo, tree, TRUE, HEADER_LEN, get_anthro_pdu_len, dissect_anthro_pdu, data);
    return tvb_captured_length(tvb);
}

/* Lab mode is recognised by the preface at the start of a stream, never by port (§1). */
static gboolean dissect_anthro_heur(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
    guint have = tvb_captured_length(tvb);
    /* A first segment shorter than the magic is taken on a prefix of at least 4 bytes, and then
     * only at the very start of the stream, where the spec puts the preface. */
    const struct tcpinfo* tcp = (const struct tcpinfo*)data;
    guint need = have >= MAGIC_LEN ? MAGIC_LEN : (tcp && tcp->seq == 1 && have >= 4 ? have : MAGIC_LEN + 1);
    if (have < need || tvb_memeql(tvb, 0, (const guint8*)ANTHRO_MAGIC, need) != 0) return FALSE;
    conversation_t* conv = find_or_create_conversation(pinfo);
    conversation_set_dissector(conv, anthro_handle);
    dissect_anthro(tvb, pinfo, tree, data);
    return TRUE;
}

static void anthro_prefs_changed(void) {
    /* Forget the loaded file so the next frame reads the (possibly new) path. */
    g_free(loaded_path);
    loaded_path = NULL;
    if (keys_by_token) g_hash_table_remove_all(keys_by_token);
}

void proto_register_anthro(void);
void proto_reg_handoff_anthro(void);

void proto_register_anthro(void) {
    static hf_register_info hf[] = {
        {&hf_magic, {"Preface", "anthro.preface", FT_STRING, BASE_NONE, NULL, 0, "ANTHRO01", HFILL}},
        {&hf_blob_version, {"Blob version", "anthro.blob_version", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_role, {"Role", "anthro.role", FT_UINT8, BASE_DEC, VALS(role_names), 0, NULL, HFILL}},
        {&hf_max_streams, {"Max streams", "anthro.max_streams", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_default_max_tokens,
         {"Default max tokens", "anthro.default_max_tokens", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_flags, {"Flags", "anthro.flags", FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_flags_streaming, {"Streaming", "anthro.flags.streaming", FT_BOOLEAN, 8, NULL, 0x01, NULL, HFILL}},
        {&hf_flags_speculative,
         {"Speculative decoding", "anthro.flags.speculative", FT_BOOLEAN, 8, NULL, 0x02, NULL, HFILL}},
        {&hf_flags_caching, {"Context caching", "anthro.flags.caching", FT_BOOLEAN, 8, NULL, 0x04, NULL, HFILL}},
        {&hf_flags_unknown, {"Reserved bits", "anthro.flags.reserved", FT_UINT8, BASE_HEX, NULL, 0xf8, NULL, HFILL}},
        {&hf_aead, {"AEAD suites", "anthro.aead", FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_aead_aes, {"AES-256-GCM", "anthro.aead.aes_256_gcm", FT_BOOLEAN, 8, NULL, 0x01, NULL, HFILL}},
        {&hf_aead_chacha,
         {"ChaCha20-Poly1305", "anthro.aead.chacha20_poly1305", FT_BOOLEAN, 8, NULL, 0x02, NULL, HFILL}},
        {&hf_ring_buffer_kib, {"Ring buffer (KiB)", "anthro.ring_buffer_kib", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_blob_reserved, {"Reserved", "anthro.blob_reserved", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_connection_token,
         {"Connection token", "anthro.connection_token", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_x25519_public, {"X25519 public key", "anthro.x25519_public", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_random, {"Random", "anthro.random", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_version, {"Version", "anthro.version", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_type, {"Type", "anthro.type", FT_UINT8, BASE_DEC, VALS(type_names), 0, NULL, HFILL}},
        {&hf_reserved, {"Reserved", "anthro.reserved", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_payload_length, {"Payload length", "anthro.payload_length", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_nonce, {"Nonce", "anthro.nonce", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_ciphertext, {"Ciphertext", "anthro.ciphertext", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_tag, {"Tag", "anthro.tag", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_decrypted, {"Decrypted", "anthro.decrypted", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_suite, {"Suite", "anthro.suite", FT_UINT8, BASE_DEC, VALS(suite_names), 0, NULL, HFILL}},
        {&hf_stream_id, {"Stream id", "anthro.stream_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_json, {"JSON", "anthro.json", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_token_index, {"Token index", "anthro.token_index", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_token_count, {"Token count", "anthro.token_count", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_text, {"Text", "anthro.text", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_text_bytes, {"Text (invalid UTF-8)", "anthro.text_bytes", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_reason, {"Reason", "anthro.reason", FT_UINT16, BASE_DEC, VALS(reason_names), 0, NULL, HFILL}},
        {&hf_code, {"Code", "anthro.code", FT_UINT16, BASE_DEC, VALS(code_names), 0, NULL, HFILL}},
        {&hf_retry_after_ms, {"Retry after (ms)", "anthro.retry_after_ms", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_message, {"Message", "anthro.message", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
    };
    static gint* ett[] = {&ett_anthro, &ett_blob, &ett_header, &ett_flags, &ett_aead, &ett_body};
    static ei_register_info ei[] = {
        {&ei_blob_size, {"anthro.refused.blob_size", PI_PROTOCOL, PI_ERROR, "blob refused: size (not 128 bytes)", EXPFILL}},
        {&ei_blob_version, {"anthro.refused.blob_version", PI_PROTOCOL, PI_ERROR, "blob refused: version", EXPFILL}},
        {&ei_blob_role, {"anthro.refused.role", PI_PROTOCOL, PI_ERROR, "blob refused: role", EXPFILL}},
        {&ei_blob_reserved,
         {"anthro.refused.blob_reserved", PI_PROTOCOL, PI_ERROR, "blob refused: reserved (offsets 12-15 or 88-127 not zero)", EXPFILL}},
        {&ei_blob_token, {"anthro.refused.blob_token", PI_PROTOCOL, PI_ERROR, "blob refused: token (zero)", EXPFILL}},
        {&ei_blob_max_streams,
         {"anthro.refused.max_streams", PI_PROTOCOL, PI_ERROR, "blob refused: max-streams (zero, or an answer above the offer)", EXPFILL}},
        {&ei_blob_default_max_tokens,
         {"anthro.refused.default_max_tokens", PI_PROTOCOL, PI_ERROR, "blob refused: default-max-tokens (zero)", EXPFILL}},
        {&ei_blob_flags,
         {"anthro.refused.blob_flags", PI_PROTOCOL, PI_ERROR, "blob refused: flags (bits 3-7, or an answer outside the offer)", EXPFILL}},
        {&ei_blob_aead,
         {"anthro.refused.aead", PI_PROTOCOL, PI_ERROR, "blob refused: aead (no or unknown suite, or an answer not exactly one offered suite)", EXPFILL}},
        {&ei_blob_ring,
         {"anthro.refused.ring", PI_PROTOCOL, PI_ERROR, "blob refused: ring (offer below 64 KiB, or an answer that does not echo it)", EXPFILL}},
        {&ei_blob_token_echo,
         {"anthro.refused.token_echo", PI_PROTOCOL, PI_ERROR, "blob refused: token-echo (answer token differs from the offer)", EXPFILL}},
        {&ei_version, {"anthro.refused.version", PI_PROTOCOL, PI_ERROR, "refused: version", EXPFILL}},
        {&ei_type, {"anthro.refused.type", PI_PROTOCOL, PI_ERROR, "refused: type (unknown value)", EXPFILL}},
        {&ei_flags, {"anthro.refused.flags", PI_PROTOCOL, PI_ERROR, "refused: flags", EXPFILL}},
        {&ei_reserved, {"anthro.refused.reserved", PI_PROTOCOL, PI_ERROR, "refused: reserved (not 0)", EXPFILL}},
        {&ei_length, {"anthro.refused.length", PI_MALFORMED, PI_ERROR, "refused: length", EXPFILL}},
        {&ei_token, {"anthro.refused.token", PI_PROTOCOL, PI_ERROR, "refused: token", EXPFILL}},
        {&ei_incomplete, {"anthro.refused.incomplete", PI_MALFORMED, PI_ERROR, "refused: incomplete", EXPFILL}},
        {&ei_authentication,
         {"anthro.refused.authentication", PI_DECRYPTION, PI_ERROR, "refused: authentication (the tag does not verify under any key for this token)", EXPFILL}},
        {&ei_body, {"anthro.refused.body", PI_MALFORMED, PI_ERROR, "refused: body", EXPFILL}},
        {&ei_no_key,
         {"anthro.no_key", PI_DECRYPTION, PI_NOTE, "no key: no ANTHRO_V1 line for this connection token in the key log", EXPFILL}},
        {&ei_invalid_utf8, {"anthro.invalid_utf8", PI_PROTOCOL, PI_WARN, "invalid_utf8: token text kept as raw bytes", EXPFILL}},
        {&ei_redacted, {"anthro.redacted", PI_SECURITY, PI_NOTE, "api_key redacted", EXPFILL}},
    };

    proto_anthro = proto_register_protocol("anthro-v1 transport", "anthro-v1", "anthro");
    proto_register_field_array(proto_anthro, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_module_t* em = expert_register_protocol(proto_anthro);
    expert_register_field_array(em, ei, array_length(ei));

    module_t* m = prefs_register_protocol(proto_anthro, anthro_prefs_changed);
    prefs_register_filename_preference(m, "keylog_file", "Key log file",
                                       "File with ANTHRO_V1 lines (the NSS key log the workbench's clients write); "
                                       "when empty, the TLS protocol's key log file is read",
                                       &pref_keylog_file, FALSE);

    keys_by_token = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_key_array);
    anthro_handle = register_dissector("anthro", dissect_anthro, proto_anthro);
    anthro_extension_handle = register_dissector("anthro_tls_extension", dissect_anthro_tls_extension, proto_anthro);
}

void proto_reg_handoff_anthro(void) {
    dissector_add_string("tls.alpn", "anthro-v1", anthro_handle);
    heur_dissector_add("tcp", dissect_anthro_heur, "anthro-v1 over TCP (lab mode)", "anthro_tcp", proto_anthro,
                       HEURISTIC_ENABLE);
    hf_tls_extension_type = proto_registrar_get_id_byname("tls.handshake.extension.type");
    hf_tls_extension_data = proto_registrar_get_id_byname("tls.handshake.extension.data");
    hf_tls_handshake_type = proto_registrar_get_id_byname("tls.handshake.type");
    if (hf_tls_extension_type < 0 || hf_tls_extension_data < 0 || hf_tls_handshake_type < 0) return;
    GArray* wanted = g_array_new(FALSE, FALSE, sizeof(int));
    g_array_append_val(wanted, hf_tls_extension_type);
    g_array_append_val(wanted, hf_tls_extension_data);
    g_array_append_val(wanted, hf_tls_handshake_type);
    register_postdissector(anthro_extension_handle);
    set_postdissector_wanted_hfids(anthro_extension_handle, wanted);
}
