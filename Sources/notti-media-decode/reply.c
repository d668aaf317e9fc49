#include "reply.h"

#include <stdio.h>
#include <string.h>

/// The most bytes of one string value: a fact is a few words, and a file's own text (a 9,000-byte
/// metadata tag named major_brand) must not crowd the other facts out of the answer.
enum { MOST_VALUE_BYTES = 512 };

static void append(Reply *reply, const char *text, size_t length) {
    // Room is kept for the closing brace: a member that does not fit is dropped whole (`member_end`).
    if (reply->length + length + 2 > sizeof reply->text) {
        reply->overflowed = 1;
        return;
    }
    memcpy(reply->text + reply->length, text, length);
    reply->length += length;
    reply->text[reply->length] = 0;
}

static void append_text(Reply *reply, const char *text) { append(reply, text, strlen(text)); }

static void append_quoted(Reply *reply, const char *value) {
    append_text(reply, "\"");
    // Cut at a character's first byte, never inside one (the answer stays UTF-8).
    size_t length = strlen(value), kept = length;
    if (length > MOST_VALUE_BYTES) {
        kept = MOST_VALUE_BYTES;
        while (kept > 0 && ((unsigned char)value[kept] & 0xC0) == 0x80) kept--;
    }
    for (const unsigned char *at = (const unsigned char *)value; at < (const unsigned char *)value + kept; at++) {
        char escaped[8];
        if (*at == '"' || *at == '\\') {
            snprintf(escaped, sizeof escaped, "\\%c", *at);
        } else if (*at < 0x20 || *at == 0x7f) {
            snprintf(escaped, sizeof escaped, "\\u%04x", *at);
        } else {
            escaped[0] = (char)*at;
            escaped[1] = 0;
        }
        append_text(reply, escaped);
    }
    if (kept < length) append_text(reply, "\u2026");
    append_text(reply, "\"");
}

/// Starts a member; `member_end` keeps it, or drops it whole when it did not fit.
static size_t key(Reply *reply, const char *name) {
    size_t start = reply->length;
    reply->overflowed = 0;
    if (reply->members) append_text(reply, ",");
    append_quoted(reply, name);
    append_text(reply, ":");
    return start;
}

static void member_end(Reply *reply, size_t start) {
    if (reply->overflowed) {
        reply->length = start;
        reply->text[start] = 0;
        reply->overflowed = 0;
    } else {
        reply->members++;
    }
}

void reply_begin(Reply *reply) {
    // Every byte defined: a sandboxed child hands a reply back whole, through a pipe (sandbox_run).
    memset(reply, 0, sizeof *reply);
    append_text(reply, "{");
}

void reply_string(Reply *reply, const char *name, const char *value) {
    if (!value) {
        reply_null(reply, name);
        return;
    }
    size_t start = key(reply, name);
    append_quoted(reply, value);
    member_end(reply, start);
}

void reply_int(Reply *reply, const char *name, long long value) {
    char number[32];
    size_t start = key(reply, name);
    snprintf(number, sizeof number, "%lld", value);
    append_text(reply, number);
    member_end(reply, start);
}

void reply_double(Reply *reply, const char *name, double value) {
    char number[64];
    size_t start = key(reply, name);
    snprintf(number, sizeof number, "%.3f", value);
    append_text(reply, number);
    member_end(reply, start);
}

void reply_bool(Reply *reply, const char *name, int value) {
    size_t start = key(reply, name);
    append_text(reply, value ? "true" : "false");
    member_end(reply, start);
}

void reply_null(Reply *reply, const char *name) {
    size_t start = key(reply, name);
    append_text(reply, "null");
    member_end(reply, start);
}

void reply_facts(Reply *reply, const DoorFacts *facts) {
    reply_string(reply, DOOR_STATUS_KEY, door_status_name(facts->status));
    if (facts->kind != DOOR_KIND_NONE) reply_string(reply, DOOR_KIND_KEY, door_kind_name(facts->kind));
    for (int field = 0; field < DOOR_FIELD_COUNT; field++) {
        if (!(facts->present & (1u << field))) continue;
        const char *key = door_field_key(field);
        switch (door_field_type(field)) {
        case DOOR_TEXT: reply_string(reply, key, facts->text[field]); break;
        case DOOR_NUMBER: reply_int(reply, key, facts->number[field]); break;
        case DOOR_SECONDS: reply_double(reply, key, facts->seconds); break;
        case DOOR_FLAG: reply_bool(reply, key, facts->number[field] != 0); break;
        }
    }
    if (facts->detail[0]) reply_string(reply, DOOR_DETAIL_KEY, facts->detail);
}

void reply_end(Reply *reply) {
    reply->text[reply->length++] = '}';
    reply->text[reply->length] = 0;
}
