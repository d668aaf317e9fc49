#include "openh264.h"

#include <dlfcn.h>
#include <string.h>
#include <wels/codec_api.h>

static long (*create_decoder)(ISVCDecoder **);
static void (*destroy_decoder)(ISVCDecoder *);

int openh264_loaded(void) {
    static int state = 0;  // 0: not tried, 1: loaded, -1: unavailable
    if (state) return state > 0;
    state = -1;
    void *library = dlopen("libopenh264.so.7", RTLD_NOW | RTLD_LOCAL);
    if (!library) return 0;
    create_decoder = (__typeof__(create_decoder))dlsym(library, "WelsCreateDecoder");
    destroy_decoder = (__typeof__(destroy_decoder))dlsym(library, "WelsDestroyDecoder");
    if (!create_decoder || !destroy_decoder) return 0;
    state = 1;
    return 1;
}

int openh264_decodes(const unsigned char *stream, size_t length) {
    ISVCDecoder *decoder = NULL;
    if (!openh264_loaded() || length > 0x7fffffff || create_decoder(&decoder) != 0 || !decoder) return 0;
    int quiet = WELS_LOG_QUIET;
    (*decoder)->SetOption(decoder, DECODER_OPTION_TRACE_LEVEL, &quiet);
    SDecodingParam parameters;
    memset(&parameters, 0, sizeof parameters);
    parameters.eEcActiveIdc = ERROR_CON_DISABLE;
    parameters.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC;
    int decoded = 0;
    if ((*decoder)->Initialize(decoder, &parameters) == 0) {
        unsigned char *planes[3] = {NULL, NULL, NULL};
        SBufferInfo picture;
        memset(&picture, 0, sizeof picture);
        DECODING_STATE state = (*decoder)->DecodeFrameNoDelay(decoder, stream, (int)length, planes, &picture);
        // A stream that reorders pictures holds its first back until the decoder is flushed.
        if (state == dsErrorFree && picture.iBufferStatus != 1) state = (*decoder)->FlushFrame(decoder, planes, &picture);
        decoded = state == dsErrorFree && picture.iBufferStatus == 1;
        (*decoder)->Uninitialize(decoder);
    }
    destroy_decoder(decoder);
    return decoded;
}
