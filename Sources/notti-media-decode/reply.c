#include "reply.h"

#include <stdio.h>
#include <string.h>

static void append(Reply *reply, const char *text, size_t length) {
    // Room is kept for the closing brace: an answer too long is cut, never overrun.
    if (reply->length + length + 2 > sizeof reply->text) length = sizeof reply->text - reply->length - 2;
    memcpy(reply->text + reply->length, text, length);
    reply->length += length;
    reply->text[reply->length] = 0;
}

static void append_text(Reply *reply, const char *text) { append(reply, text, strlen(text)); }

static void append_quoted(Reply *reply, const char *value) {
    append_text(reply, "\"");
    for (const unsigned char *at = (const unsigned char *)value; *at; at++) {
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
    append_text(reply, "\"");
}

static void key(Reply *reply, const char *name) {
    if (reply->members++) append_text(reply, ",");
    append_quoted(reply, name);
    append_text(reply, ":");
}

void reply_begin(Reply *reply) {
    reply->length = 0;
    reply->members = 0;
    reply->text[0] = 0;
    append_text(reply, "{");
}

void reply_string(Reply *reply, const char *name, const char *value) {
    if (!value) {
        reply_null(reply, name);
        return;
    }
    key(reply, name);
    append_quoted(reply, value);
}

void reply_int(Reply *reply, const char *name, long long value) {
    char number[32];
    key(reply, name);
    snprintf(number, sizeof number, "%lld", value);
    append_text(reply, number);
}

void reply_double(Reply *reply, const char *name, double value) {
    char number[64];
    key(reply, name);
    snprintf(number, sizeof number, "%.3f", value);
    append_text(reply, number);
}

void reply_bool(Reply *reply, const char *name, int value) {
    key(reply, name);
    append_text(reply, value ? "true" : "false");
}

void reply_null(Reply *reply, const char *name) {
    key(reply, name);
    append_text(reply, "null");
}

void reply_end(Reply *reply) {
    reply->text[reply->length++] = '}';
    reply->text[reply->length] = 0;
}
