// The first frame of a video as a JPEG (poster.h), through FFmpeg alone: its MJPEG encoder writes
// the decoded frame's YUV planes, brought from video's limited range to JPEG's full range, so the
// still needs neither libswscale nor a second worker; `fix` then draws it as it draws any picture.
// Written bit-exact: the same video gives the same bytes.
#include "ffmpeg.h"
#include "poster.h"
#include "sandbox.h"

#include <string.h>

static uint8_t clamp(int value) { return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value); }

/// `frame` (8-bit 4:2:0) as a full-range (JPEG) 4:2:0 frame of even size; NULL when it is another layout.
static AVFrame *full_range(const AVFrame *frame) {
    if (frame->format != AV_PIX_FMT_YUV420P && frame->format != AV_PIX_FMT_YUVJ420P) return NULL;
    int limited = frame->format == AV_PIX_FMT_YUV420P && frame->color_range != AVCOL_RANGE_JPEG;
    AVFrame *still = av_frame_alloc();
    if (!still) return NULL;
    still->format = AV_PIX_FMT_YUVJ420P;
    still->width = frame->width & ~1;
    still->height = frame->height & ~1;
    if (still->width < 2 || still->height < 2 || av_frame_get_buffer(still, 32) < 0) {
        av_frame_free(&still);
        return NULL;
    }
    for (int plane = 0; plane < 3; plane++) {
        int rows = plane ? still->height / 2 : still->height, columns = plane ? still->width / 2 : still->width;
        for (int row = 0; row < rows; row++) {
            const uint8_t *from = frame->data[plane] + (size_t)row * frame->linesize[plane];
            uint8_t *to = still->data[plane] + (size_t)row * still->linesize[plane];
            for (int x = 0; x < columns; x++) {
                // Video's 16–235 (luma) and 16–240 (chroma) stretched to JPEG's 0–255.
                to[x] = !limited ? from[x] : plane ? clamp(((from[x] - 128) * 255 + 112) / 224 + 128) : clamp(((from[x] - 16) * 255 + 109) / 219);
            }
        }
    }
    return still;
}

void poster_frame(const unsigned char *bytes, size_t length, int fd, DoorFacts *facts) {
    if (!ffmpeg_loaded()) return door_failed(facts, "FFmpeg's libraries are not installed");
    AVFormatContext *in = NULL;
    const char *why = ffmpeg_open_streams(&in, bytes, length);
    if (why) return door_failed(facts, why);
    int video = ffmpeg_stream_of(in, AVMEDIA_TYPE_VIDEO);
    AVFrame *frame = av_frame_alloc();
    AVFrame *still = NULL;
    AVCodecContext *encoder = NULL;
    AVPacket *packet = av_packet_alloc();
    const char *problem = NULL;
    if (video < 0) problem = "no video stream";
    else if (!frame || !packet || ffmpeg_first_frame(in, video, frame) != 1) problem = "not one frame of it decodes";
    else if (!(still = full_range(frame))) problem = "its frames are not 8-bit 4:2:0, which this version does not convert";
    const AVCodec *mjpeg = problem ? NULL : avcodec_find_encoder_by_name("mjpeg");
    if (!problem && !mjpeg) problem = "FFmpeg has no JPEG (mjpeg) encoder here";
    if (!problem && !(encoder = avcodec_alloc_context3(mjpeg))) problem = "out of memory";
    if (!problem) {
        encoder->width = still->width;
        encoder->height = still->height;
        encoder->pix_fmt = AV_PIX_FMT_YUVJ420P;
        encoder->color_range = AVCOL_RANGE_JPEG;
        encoder->time_base = (AVRational){1, 1};
        encoder->thread_count = 1;
        // Quality 2 of MJPEG's 2–31 scale (about JPEG quality 95): the still is drawn again by `fix`.
        encoder->flags |= AV_CODEC_FLAG_QSCALE | AV_CODEC_FLAG_BITEXACT;
        encoder->global_quality = FF_QP2LAMBDA * 2;
        still->quality = encoder->global_quality;
        still->pts = 0;
        if (avcodec_open2(encoder, mjpeg, NULL) < 0 || avcodec_send_frame(encoder, still) < 0 || avcodec_send_frame(encoder, NULL) < 0 ||
            avcodec_receive_packet(encoder, packet) < 0) {
            problem = "FFmpeg could not write the frame as JPEG";
        } else if (sandbox_write_all(fd, packet->data, (size_t)packet->size) != 0) {
            problem = "cannot write the still";
        }
    }
    if (!problem) {
        door_status(facts, DOOR_FIXED, NULL);
        door_text(facts, DOOR_TYPE, "jpg");
        door_number(facts, DOOR_WIDTH, still->width);
        door_number(facts, DOOR_HEIGHT, still->height);
    } else {
        door_failed(facts, problem);
    }
    av_packet_free(&packet);
    avcodec_free_context(&encoder);
    av_frame_free(&still);
    av_frame_free(&frame);
    ffmpeg_close_memory(&in);
}
