#include "CCurlShim.h"

#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

CURLcode CCurlShim_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CCurlShim_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode CCurlShim_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode CCurlShim_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

CURLcode CCurlShim_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CCurlShim_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CCurlShim_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// The TLS handshake as OpenSSL sees it (SPEC 3 and 18). libcurl makes an
// SSL_CTX per connection and hands it to CURLOPT_SSL_CTX_FUNCTION; an info
// callback on it notes the server's answer, its hello or an alert (a failed
// handshake without one was reset or closed: the network's failure, not TLS's) and, once the
// handshake is done, what it agreed and the chain OpenSSL verified.
static int watch_index = -1;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void make_watch_index(void) {
    watch_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

void CCurlShim_tls_watch_clear(CCurlShim_TLSWatch *watch) {
    if (watch->chain) sk_X509_pop_free((STACK_OF(X509) *)watch->chain, X509_free);
    memset(watch, 0, sizeof *watch);
}

static void note_handshake(const SSL *ssl, int where, int ret) {
    (void)ret;
    CCurlShim_TLSWatch *watch = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), watch_index);
    if (!watch) return;
    // The server answered: its hello, or an alert instead (no suite or version in common).
    if ((where & SSL_CB_LOOP) && SSL_get_state(ssl) == TLS_ST_CR_SRVR_HELLO) watch->heard_server = 1;
    if (where & SSL_CB_READ_ALERT) watch->heard_server = 1;
    if (!(where & SSL_CB_HANDSHAKE_DONE)) return;
    // TLS 1.3 may report "done" again for a session ticket: the first report stands.
    if (watch->handshake_done) return;
    STACK_OF(X509) *verified = SSL_get0_verified_chain(ssl);
    const SSL_CIPHER *cipher = SSL_get_current_cipher(ssl);
    watch->handshake_done = 1;
    watch->version = SSL_get_version(ssl);
    watch->cipher = cipher ? SSL_CIPHER_standard_name(cipher) : NULL;
    watch->forward_secret = SSL_version(ssl) >= TLS1_3_VERSION
        || (cipher && SSL_CIPHER_get_kx_nid(cipher) == NID_kx_ecdhe);
    watch->chain = verified ? X509_chain_up_ref(verified) : NULL;
}

static CURLcode watch_context(CURL *handle, void *context, void *watch) {
    (void)handle;
    if (watch_index >= 0 && SSL_CTX_set_ex_data((SSL_CTX *)context, watch_index, watch) == 1) {
        SSL_CTX_set_info_callback((SSL_CTX *)context, note_handshake);
    }
    return CURLE_OK;
}

CURLcode CCurlShim_watch_tls(CURL *handle, CCurlShim_TLSWatch *watch) {
    pthread_once(&watch_once, make_watch_index);
    if (watch_index < 0) return CURLE_FAILED_INIT;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, watch_context);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, (void *)watch);
}

static X509 *chain_at(const CCurlShim_TLSWatch *watch, int index) {
    STACK_OF(X509) *chain = watch->chain;
    if (!chain || index < 0 || index >= sk_X509_num(chain)) return NULL;
    return sk_X509_value(chain, index);
}

int CCurlShim_tls_chain_length(const CCurlShim_TLSWatch *watch) {
    return watch->chain ? sk_X509_num((STACK_OF(X509) *)watch->chain) : 0;
}

static long long seconds_since_epoch(const ASN1_TIME *time) {
    struct tm parts;
    if (!time || ASN1_TIME_to_tm(time, &parts) != 1) return 0;
    return (long long)timegm(&parts);
}

static const char *key_type_name(EVP_PKEY *key) {
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA: case EVP_PKEY_RSA_PSS: return "RSA";
    case EVP_PKEY_EC: return "ECDSA";
    case EVP_PKEY_ED25519: return "Ed25519";
    case EVP_PKEY_ED448: return "Ed448";
    case EVP_PKEY_DSA: return "DSA";
    default: {
        const char *name = OBJ_nid2sn(EVP_PKEY_get_base_id(key));
        return name ? name : "unknown";
    }
    }
}

/// Appends `text` and a separator to a malloc'd list; returns the list (NULL when out of memory).
/// Appends `prefix` and `text` as one line of `list`. The name is the certificate's own bytes: a line break, a
/// backslash or a NUL in it is escaped (`\n`, `\\`, `\0`), so that one name never reads as two (a name holding
/// `\nDNS:other` split in two) and none ends the list early.
static char *append_line(char *list, const char *prefix, const char *text, size_t length) {
    size_t old = list ? strlen(list) : 0;
    size_t extra = (old ? 1 : 0) + strlen(prefix) + 2 * length + 1;
    char *longer = realloc(list, old + extra);
    if (!longer) { free(list); return NULL; }
    char *end = longer + old;
    if (old) *end++ = '\n';
    memcpy(end, prefix, strlen(prefix));
    end += strlen(prefix);
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (c == '\n' || c == '\\' || c == 0) {
            *end++ = '\\';
            *end++ = c == '\n' ? 'n' : c == 0 ? '0' : '\\';
        } else {
            *end++ = c;
        }
    }
    *end = 0;
    return longer;
}

static char *subject_alt_names(X509 *certificate, int *present) {
    GENERAL_NAMES *names = X509_get_ext_d2i(certificate, NID_subject_alt_name, NULL, NULL);
    *present = names != NULL;
    if (!names) return NULL;
    char *list = calloc(1, 1);
    for (int i = 0; list && i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        if (name->type == GEN_DNS) {
            list = append_line(list, "DNS:", (const char *)ASN1_STRING_get0_data(name->d.dNSName),
                               (size_t)ASN1_STRING_length(name->d.dNSName));
        } else if (name->type == GEN_IPADD) {
            ASN1_OCTET_STRING *address = name->d.iPAddress;
            char printed[INET6_ADDRSTRLEN] = "";
            if (address->length == 4 || address->length == 16) {
                inet_ntop(address->length == 4 ? AF_INET : AF_INET6, address->data, printed, sizeof printed);
            }
            list = append_line(list, "IP:", printed, strlen(printed));
        }
    }
    GENERAL_NAMES_free(names);
    return list;
}

int CCurlShim_tls_certificate(const CCurlShim_TLSWatch *watch, int index, CCurlShim_Certificate *out) {
    memset(out, 0, sizeof *out);
    X509 *certificate = chain_at(watch, index);
    if (!certificate) return -1;
    EVP_PKEY *key = X509_get0_pubkey(certificate);
    out->key_type = key ? key_type_name(key) : "unknown";
    out->key_bits = key ? EVP_PKEY_get_bits(key) : 0;
    int signature = X509_get_signature_nid(certificate);
    const char *signature_name = OBJ_nid2ln(signature);
    out->signature = signature_name ? signature_name : "unknown";
    int digest = NID_undef;
    if (X509_get_signature_info(certificate, &digest, NULL, NULL, NULL) == 1) {
        out->signature_sha2 = digest == NID_sha224 || digest == NID_sha256 || digest == NID_sha384 || digest == NID_sha512;
    }
    out->not_before = seconds_since_epoch(X509_get0_notBefore(certificate));
    out->not_after = seconds_since_epoch(X509_get0_notAfter(certificate));
    X509_NAME_oneline(X509_get_subject_name(certificate), out->subject, sizeof out->subject);
    int present = 0;
    out->subject_alt_names = subject_alt_names(certificate, &present);
    EXTENDED_KEY_USAGE *usages = X509_get_ext_d2i(certificate, NID_ext_key_usage, NULL, NULL);
    out->has_extended_key_usage = usages != NULL;
    for (int i = 0; usages && i < sk_ASN1_OBJECT_num(usages); i++) {
        char name[80];
        int nid = OBJ_obj2nid(sk_ASN1_OBJECT_value(usages, i));
        if (nid != NID_undef) {
            snprintf(name, sizeof name, "%s", OBJ_nid2sn(nid));
        } else {
            OBJ_obj2txt(name, sizeof name, sk_ASN1_OBJECT_value(usages, i), 1);
        }
        size_t used = strlen(out->extended_key_usage);
        snprintf(out->extended_key_usage + used, sizeof out->extended_key_usage - used, "%s%s", used ? "," : "", name);
    }
    EXTENDED_KEY_USAGE_free(usages);
    int critical = 0;
    STACK_OF(SCT) *scts = X509_get_ext_d2i(certificate, NID_ct_precert_scts, &critical, NULL);
    if (scts) {
        out->scts = sk_SCT_num(scts);
        SCT_LIST_free(scts);
    } else {
        // -1: no such extension (0 SCTs); -2: several; otherwise it is there but unreadable.
        out->scts = critical == -1 ? 0 : -1;
    }
    return 0;
}

void CCurlShim_certificate_free(CCurlShim_Certificate *certificate) {
    free(certificate->subject_alt_names);
    certificate->subject_alt_names = NULL;
}

int CCurlShim_tls_leaf_names(const CCurlShim_TLSWatch *watch, const char *host) {
    X509 *leaf = chain_at(watch, 0);
    if (!leaf || !host) return 0;
    const unsigned int flags = X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;
    if (X509_check_ip_asc(leaf, host, flags) == 1) return 1;
    return X509_check_host(leaf, host, strlen(host), flags, NULL) == 1;
}

int CCurlShim_tls_root_sha256(const CCurlShim_TLSWatch *watch, unsigned char digest[32]) {
    X509 *root = chain_at(watch, CCurlShim_tls_chain_length(watch) - 1);
    unsigned int length = 0;
    if (!root || X509_digest(root, EVP_sha256(), digest, &length) != 1 || length != 32) return -1;
    return 0;
}

unsigned long CCurlShim_tls_root_subject_hash(const CCurlShim_TLSWatch *watch) {
    X509 *root = chain_at(watch, CCurlShim_tls_chain_length(watch) - 1);
    return root ? X509_NAME_hash_ex(X509_get_subject_name(root), NULL, NULL, NULL) : 0;
}
