// `fix` for video and audio (SPEC 19), through FFmpeg: HEVC stored as `hev1`
// re-muxed as `hvc1` (the same stream, no re-encode, the index at the front),
// another video re-encoded as H.264 and AAC, and a sound too large for iOS re-encoded as MP3 at the highest standard
// bitrate that keeps it within the bytes allowed, cover art dropped. Written
// with FFmpeg's bit-exact flags (no version strings, no dates): the same input
// gives the same bytes.
#include "ffmpeg.h"
#include "transcode.h"

#include <stdio.h>
#include <string.h>

/// Ends the muxer's output (ffmpeg.h: it was written in memory): its bytes written to `fd` when `code` says
/// the muxing worked; the code, or a write's failure.
static int end_output(AVFormatContext *out, int fd, int code) {
    if (!out || !out->pb) return code;
    int written = ffmpeg_end_output(out, code >= 0 ? fd : -1);
    return code < 0 ? code : written < 0 ? AVERROR(EIO) : code;
}

/// A stream of `out` carrying what `encoder` writes.
static int add_encoded_stream(AVFormatContext *out, AVCodecContext *encoder) {
    AVStream *stream = avformat_new_stream(out, NULL);
    if (!stream) return AVERROR(ENOMEM);
    stream->time_base = encoder->time_base;
    return avcodec_parameters_from_context(stream->codecpar, encoder);
}

/// `reply_failed`, with FFmpeg's words for `code`.
static void fail_with(DoorFacts *facts, int code) {
    char error[128];
    av_strerror(code, error, sizeof error);
    door_failed(facts, error);
}

/// Copies the video and audio streams into an MP4 whose HEVC sample entry is `hvc1`.
static void remux_as_hvc1(AVFormatContext *in, int fd, DoorFacts *facts) {
    AVFormatContext *out = NULL;
    if (avformat_alloc_output_context2(&out, NULL, "mp4", NULL) < 0 || !out) return door_failed(facts, "no MP4 muxer");
    out->flags |= AVFMT_FLAG_BITEXACT;
    int map[64];
    int kept = 0;
    for (unsigned i = 0; i < in->nb_streams && i < 64; i++) {
        const AVStream *source = in->streams[i];
        enum AVMediaType type = source->codecpar->codec_type;
        map[i] = -1;
        if ((type != AVMEDIA_TYPE_VIDEO && type != AVMEDIA_TYPE_AUDIO) || (source->disposition & AV_DISPOSITION_ATTACHED_PIC)) continue;
        AVStream *stream = avformat_new_stream(out, NULL);
        if (!stream || avcodec_parameters_copy(stream->codecpar, source->codecpar) < 0) {
            avformat_free_context(out);
            return door_failed(facts, "cannot copy a stream");
        }
        stream->codecpar->codec_tag = source->codecpar->codec_id == AV_CODEC_ID_HEVC ? MKTAG('h', 'v', 'c', '1') : 0;
        stream->time_base = source->time_base;
        map[i] = kept++;
    }
    AVDictionary *options = NULL;
    av_dict_set(&options, "movflags", "+faststart", 0);
    int code = ffmpeg_output_in_memory(out);
    if (code >= 0) code = avformat_write_header(out, &options);
    av_dict_free(&options);
    AVPacket *packet = av_packet_alloc();
    long long packets = 0;
    while (code >= 0 && packet && av_read_frame(in, packet) >= 0) {
        int index = packet->stream_index;
        if (index < 64 && map[index] >= 0) {
            av_packet_rescale_ts(packet, in->streams[index]->time_base, out->streams[map[index]]->time_base);
            packet->stream_index = map[index];
            packet->pos = -1;
            code = av_interleaved_write_frame(out, packet);
            packets++;
        }
        av_packet_unref(packet);
    }
    av_packet_free(&packet);
    if (code >= 0) code = av_write_trailer(out);
    code = end_output(out, fd, code);
    avformat_free_context(out);
    if (packets == 0) return door_failed(facts, "no packet to copy");
    if (code < 0) return fail_with(facts, code);
    door_status(facts, DOOR_FIXED, NULL);
    door_text(facts, DOOR_TYPE, "mp4");
    door_text(facts, DOOR_CHANGE, "re-muxed hev1 → hvc1 (the same HEVC stream, not re-encoded)");
}

/// The standard MP3 bitrates, highest first (kbit/s).
static const int mp3_rates[] = {320, 256, 224, 192, 160, 128, 112, 96, 80, 64, 56, 48, 40, 32};

/// Hands the resampler's output to the encoder a frame at a time (at the end, what is left too) and
/// writes the encoder's packets to `out`.
static int emit(SwrContext *resampler, AVCodecContext *encoder, AVFormatContext *out, int stream, int64_t *next_pts, int final) {
    int code = 0;
    AVPacket *encoded = av_packet_alloc();
    if (!encoded) return AVERROR(ENOMEM);
    while (code >= 0) {
        int64_t waiting = swr_get_delay(resampler, encoder->sample_rate);
        if (waiting < encoder->frame_size && !(final && waiting > 0)) break;
        AVFrame *frame = av_frame_alloc();
        if (!frame) {
            code = AVERROR(ENOMEM);
            break;
        }
        frame->nb_samples = encoder->frame_size;
        frame->format = encoder->sample_fmt;
        frame->sample_rate = encoder->sample_rate;
        av_channel_layout_copy(&frame->ch_layout, &encoder->ch_layout);
        code = av_frame_get_buffer(frame, 0);
        int samples = code >= 0 ? swr_convert(resampler, frame->data, encoder->frame_size, NULL, 0) : 0;
        if (samples > 0) {
            frame->nb_samples = samples;
            frame->pts = *next_pts;
            *next_pts += samples;
            code = avcodec_send_frame(encoder, frame);
        }
        av_frame_free(&frame);
        if (samples <= 0) break;
        while (code >= 0 && avcodec_receive_packet(encoder, encoded) >= 0) {
            av_packet_rescale_ts(encoded, encoder->time_base, out->streams[stream]->time_base);
            encoded->stream_index = stream;
            code = av_interleaved_write_frame(out, encoded);
        }
    }
    av_packet_free(&encoded);
    return code;
}

/// Decodes every packet of stream `index`, resamples it for `encoder` and writes what it encodes to `out`.
static int encode_all(AVFormatContext *in, int index, AVCodecContext *decoder, AVCodecContext *encoder, SwrContext *resampler,
                      AVFormatContext *out) {
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int code = packet && frame ? 0 : AVERROR(ENOMEM);
    int64_t next_pts = 0;
    int ended = 0;
    while (code >= 0 && !ended) {
        int read = av_read_frame(in, packet);
        if (read < 0) {
            ended = 1;
            avcodec_send_packet(decoder, NULL);
        } else {
            if (packet->stream_index == index) avcodec_send_packet(decoder, packet);
            av_packet_unref(packet);
        }
        while (code >= 0 && avcodec_receive_frame(decoder, frame) >= 0) {
            if (swr_convert(resampler, NULL, 0, (const uint8_t **)frame->extended_data, frame->nb_samples) < 0) code = AVERROR(EINVAL);
            if (code >= 0) code = emit(resampler, encoder, out, 0, &next_pts, 0);
        }
    }
    if (code >= 0) code = emit(resampler, encoder, out, 0, &next_pts, 1);
    // The encoder's delayed packets.
    if (code >= 0 && avcodec_send_frame(encoder, NULL) >= 0) {
        while (code >= 0 && avcodec_receive_packet(encoder, packet) >= 0) {
            av_packet_rescale_ts(packet, encoder->time_base, out->streams[0]->time_base);
            packet->stream_index = 0;
            code = av_interleaved_write_frame(out, packet);
        }
    }
    av_frame_free(&frame);
    av_packet_free(&packet);
    return code;
}

/// Re-encodes the sound as MP3 at the highest standard bitrate within `target_bytes`.
static void encode_mp3(AVFormatContext *in, int index, long long target_bytes, int fd, DoorFacts *facts) {
    double seconds = in->duration > 0 ? (double)in->duration / AV_TIME_BASE : 0;
    if (seconds <= 0) return door_failed(facts, "its duration is not known");
    int rate = 0;
    for (size_t i = 0; i < sizeof mp3_rates / sizeof *mp3_rates; i++) {
        // The frames' bytes, a frame more for the encoder's delay, and the muxer's header.
        double bytes = mp3_rates[i] * 1000.0 / 8 * (seconds + 0.1) + 4096;
        if (bytes <= (double)target_bytes) {
            rate = mp3_rates[i];
            break;
        }
    }
    if (!rate) return door_failed(facts, "no MP3 bitrate keeps it within the bytes allowed");
    const AVCodecParameters *parameters = in->streams[index]->codecpar;
    const AVCodec *decoding = avcodec_find_decoder(parameters->codec_id);
    const AVCodec *encoding = avcodec_find_encoder_by_name("libmp3lame");
    if (!decoding || !encoding) return door_failed(facts, !encoding ? "FFmpeg has no MP3 encoder (libmp3lame) here" : "no decoder for its codec");
    AVCodecContext *decoder = avcodec_alloc_context3(decoding), *encoder = avcodec_alloc_context3(encoding);
    AVFormatContext *out = NULL;
    SwrContext *resampler = NULL;
    int code = decoder && encoder ? avcodec_parameters_to_context(decoder, parameters) : AVERROR(ENOMEM);
    if (code >= 0) {
        decoder->thread_count = 1;
        code = avcodec_open2(decoder, decoding, NULL);
    }
    if (code >= 0) {
        int channels = decoder->ch_layout.nb_channels > 1 ? 2 : 1;
        av_channel_layout_default(&encoder->ch_layout, channels);
        encoder->sample_rate = decoder->sample_rate > 48000 ? 48000 : decoder->sample_rate < 8000 ? 44100 : decoder->sample_rate;
        encoder->sample_fmt = AV_SAMPLE_FMT_S16P;
        encoder->bit_rate = rate * 1000;
        encoder->time_base = (AVRational){1, encoder->sample_rate};
        encoder->flags |= AV_CODEC_FLAG_BITEXACT;
        code = avcodec_open2(encoder, encoding, NULL);
    }
    if (code >= 0) {
        code = swr_alloc_set_opts2(&resampler, &encoder->ch_layout, encoder->sample_fmt, encoder->sample_rate, &decoder->ch_layout,
                                   decoder->sample_fmt, decoder->sample_rate, 0, NULL);
        if (code >= 0) code = swr_init(resampler);
    }
    if (code >= 0) code = avformat_alloc_output_context2(&out, NULL, "mp3", NULL);
    if (code >= 0 && out) {
        out->flags |= AVFMT_FLAG_BITEXACT;
        code = add_encoded_stream(out, encoder);
        if (code >= 0) code = ffmpeg_output_in_memory(out);
        if (code >= 0) code = avformat_write_header(out, NULL);
        if (code >= 0) code = encode_all(in, index, decoder, encoder, resampler, out);
        if (code >= 0) code = av_write_trailer(out);
        code = end_output(out, fd, code);
    }
    if (out) avformat_free_context(out);
    swr_free(&resampler);
    avcodec_free_context(&decoder);
    avcodec_free_context(&encoder);
    if (code < 0) return fail_with(facts, code);
    char change[96];
    snprintf(change, sizeof change, "re-encoded as MP3 at %d kbit/s", rate);
    door_status(facts, DOOR_FIXED, NULL);
    door_text(facts, DOOR_TYPE, "mp3");
    door_text(facts, DOOR_CHANGE, change);
}

/// Writes every packet `encoder` has ready to `stream` of `out`.
static int drain(AVCodecContext *encoder, AVFormatContext *out, int stream, AVPacket *packet) {
    int code = 0;
    while (code >= 0 && avcodec_receive_packet(encoder, packet) >= 0) {
        av_packet_rescale_ts(packet, encoder->time_base, out->streams[stream]->time_base);
        packet->stream_index = stream;
        code = av_interleaved_write_frame(out, packet);
    }
    return code;
}

/// A decoder of stream `index`, one thread (the same frames every run); NULL when there is none.
static AVCodecContext *open_decoder(AVFormatContext *in, int index) {
    const AVCodec *codec = avcodec_find_decoder(in->streams[index]->codecpar->codec_id);
    AVCodecContext *decoder = codec && ffmpeg_decoder_allowed(codec) ? avcodec_alloc_context3(codec) : NULL;
    if (!decoder) return NULL;
    decoder->thread_count = 1;
    if (avcodec_parameters_to_context(decoder, in->streams[index]->codecpar) < 0 || avcodec_open2(decoder, codec, NULL) < 0) {
        avcodec_free_context(&decoder);
        return NULL;
    }
    return decoder;
}

/// Re-encodes the video as H.264 (`avc1`, libx264, CRF 23, or the bitrate that keeps it within
/// `target_bytes`) and its sound as AAC, in an MP4 with the index at the front. The decoded frames
/// must be 8-bit 4:2:0 (what VP8, VP9, AV1 and Theora files carry): other layouts are not converted.
static void encode_h264(AVFormatContext *in, int video, int audio, long long target_bytes, int fd, DoorFacts *facts) {
    AVCodecContext *video_decoder = open_decoder(in, video), *audio_decoder = audio >= 0 ? open_decoder(in, audio) : NULL;
    const AVCodec *x264 = avcodec_find_encoder_by_name("libx264"), *aac = avcodec_find_encoder_by_name("aac");
    AVCodecContext *video_encoder = NULL, *audio_encoder = NULL;
    AVFormatContext *out = NULL;
    SwrContext *resampler = NULL;
    const char *problem = NULL;
    if (!video_decoder) problem = "no decoder here for its video";
    else if (!x264 || !aac) problem = "FFmpeg has no H.264 (libx264) or AAC encoder here";
    else if (video_decoder->pix_fmt != AV_PIX_FMT_YUV420P && video_decoder->pix_fmt != AV_PIX_FMT_YUVJ420P)
        problem = "its frames are not 8-bit 4:2:0, which this version does not convert";
    int code = problem ? -1 : 0;
    double seconds = in->duration > 0 ? (double)in->duration / AV_TIME_BASE : 0;
    AVRational time_base = in->streams[video]->time_base;
    if (code >= 0) code = avformat_alloc_output_context2(&out, NULL, "mp4", NULL);
    if (code >= 0 && out) {
        out->flags |= AVFMT_FLAG_BITEXACT;
        video_encoder = avcodec_alloc_context3(x264);
        video_encoder->width = video_decoder->width & ~1;
        video_encoder->height = video_decoder->height & ~1;
        video_encoder->pix_fmt = AV_PIX_FMT_YUV420P;
        video_encoder->time_base = time_base;
        video_encoder->framerate = in->streams[video]->avg_frame_rate;
        video_encoder->thread_count = 1;
        video_encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_BITEXACT;
        av_opt_set(video_encoder->priv_data, "preset", "veryfast", 0);
        av_opt_set(video_encoder->priv_data, "profile", "high", 0);
        long long video_bits = seconds > 0 ? (long long)((double)target_bytes * 8 * 0.92 / seconds) - 128000 : 0;
        if (seconds > 0 && video_bits < 8000000 && (long long)(seconds * 8000000 / 8) > target_bytes) {
            // Bytes, not quality, bound it: the bitrate that fits, with room for the sound and the index.
            video_encoder->bit_rate = video_bits > 100000 ? video_bits : 100000;
        } else {
            av_opt_set(video_encoder->priv_data, "crf", "23", 0);
        }
        code = avcodec_open2(video_encoder, x264, NULL);
        if (code >= 0) code = add_encoded_stream(out, video_encoder);
    }
    if (code >= 0 && audio_decoder) {
        audio_encoder = avcodec_alloc_context3(aac);
        av_channel_layout_default(&audio_encoder->ch_layout, audio_decoder->ch_layout.nb_channels > 1 ? 2 : 1);
        audio_encoder->sample_rate = audio_decoder->sample_rate > 48000 || audio_decoder->sample_rate < 8000 ? 48000 : audio_decoder->sample_rate;
        audio_encoder->sample_fmt = AV_SAMPLE_FMT_FLTP;
        audio_encoder->bit_rate = 128000;
        audio_encoder->time_base = (AVRational){1, audio_encoder->sample_rate};
        audio_encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_BITEXACT;
        code = avcodec_open2(audio_encoder, aac, NULL);
        if (code >= 0) {
            code = swr_alloc_set_opts2(&resampler, &audio_encoder->ch_layout, audio_encoder->sample_fmt, audio_encoder->sample_rate,
                                       &audio_decoder->ch_layout, audio_decoder->sample_fmt, audio_decoder->sample_rate, 0, NULL);
            if (code >= 0) code = swr_init(resampler);
        }
        if (code >= 0) code = add_encoded_stream(out, audio_encoder);
    }
    AVDictionary *options = NULL;
    av_dict_set(&options, "movflags", "+faststart", 0);
    if (code >= 0) code = ffmpeg_output_in_memory(out);
    if (code >= 0) code = avformat_write_header(out, &options);
    av_dict_free(&options);
    AVPacket *packet = av_packet_alloc(), *encoded = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int64_t audio_pts = 0;
    int ended = 0;
    while (code >= 0 && !ended && packet && encoded && frame) {
        if (av_read_frame(in, packet) < 0) {
            ended = 1;
            avcodec_send_packet(video_decoder, NULL);
            if (audio_decoder) avcodec_send_packet(audio_decoder, NULL);
        } else {
            if (packet->stream_index == video) avcodec_send_packet(video_decoder, packet);
            else if (audio_decoder && packet->stream_index == audio) avcodec_send_packet(audio_decoder, packet);
            av_packet_unref(packet);
        }
        while (code >= 0 && avcodec_receive_frame(video_decoder, frame) >= 0) {
            // Each frame is copied at the first frame's size: a frame smaller than that (VP8 and VP9 may change
            // size mid-stream) or of another layout would be read past its rows. Not scaled here: refused.
            if (frame->width < video_encoder->width || frame->height < video_encoder->height ||
                (frame->format != AV_PIX_FMT_YUV420P && frame->format != AV_PIX_FMT_YUVJ420P)) {
                problem = "its frames change size or layout mid-stream, which this version does not scale";
                code = -1;
                break;
            }
            // The encoder is given a copy whose padding past the picture is zero: x264 reads some of it, and
            // a decoder's buffers hold whatever was there before (a one-byte difference, one run in several).
            AVFrame *clean = av_frame_alloc();
            code = clean ? 0 : AVERROR(ENOMEM);
            if (code >= 0) {
                clean->format = AV_PIX_FMT_YUV420P;
                clean->width = video_encoder->width;
                clean->height = video_encoder->height;
                code = av_frame_get_buffer(clean, 64);
            }
            for (int i = 0; code >= 0 && i < AV_NUM_DATA_POINTERS && clean->buf[i]; i++) memset(clean->buf[i]->data, 0, clean->buf[i]->size);
            if (code >= 0) {
                for (int plane = 0; plane < 3; plane++) {
                    int rows = plane == 0 ? clean->height : (clean->height + 1) / 2;
                    int bytes = plane == 0 ? clean->width : (clean->width + 1) / 2;
                    for (int row = 0; row < rows; row++) {
                        memcpy(clean->data[plane] + (size_t)row * clean->linesize[plane],
                               frame->data[plane] + (size_t)row * frame->linesize[plane], (size_t)bytes);
                    }
                }
                clean->pts = frame->best_effort_timestamp;
                code = avcodec_send_frame(video_encoder, clean);
            }
            av_frame_free(&clean);
            if (code >= 0) code = drain(video_encoder, out, 0, encoded);
        }
        while (code >= 0 && audio_decoder && avcodec_receive_frame(audio_decoder, frame) >= 0) {
            if (swr_convert(resampler, NULL, 0, (const uint8_t **)frame->extended_data, frame->nb_samples) < 0) code = AVERROR(EINVAL);
            if (code >= 0) code = emit(resampler, audio_encoder, out, 1, &audio_pts, 0);
        }
    }
    if (code >= 0 && audio_encoder) code = emit(resampler, audio_encoder, out, 1, &audio_pts, 1);
    if (code >= 0 && avcodec_send_frame(video_encoder, NULL) >= 0) code = drain(video_encoder, out, 0, encoded);
    if (code >= 0 && audio_encoder && avcodec_send_frame(audio_encoder, NULL) >= 0) code = drain(audio_encoder, out, 1, encoded);
    if (code >= 0) code = av_write_trailer(out);
    code = end_output(out, fd, code);
    if (out) avformat_free_context(out);
    av_frame_free(&frame);
    av_packet_free(&packet);
    av_packet_free(&encoded);
    swr_free(&resampler);
    avcodec_free_context(&video_decoder);
    avcodec_free_context(&audio_decoder);
    avcodec_free_context(&video_encoder);
    avcodec_free_context(&audio_encoder);
    if (problem) return door_failed(facts, problem);
    if (code < 0) return fail_with(facts, code);
    door_status(facts, DOOR_FIXED, NULL);
    door_text(facts, DOOR_TYPE, "mp4");
    door_text(facts, DOOR_CHANGE, "re-encoded as H.264 (avc1) and AAC");
}

void fix_stream(const unsigned char *bytes, size_t length, long long target_bytes, int fd, DoorFacts *facts) {
    if (!ffmpeg_loaded()) return door_failed(facts, "FFmpeg's libraries are not installed");
    AVFormatContext *in = NULL;
    const char *why = ffmpeg_open_streams(&in, bytes, length);
    if (why) return door_failed(facts, why);
    int video = ffmpeg_stream_of(in, AVMEDIA_TYPE_VIDEO), audio = ffmpeg_stream_of(in, AVMEDIA_TYPE_AUDIO);
    if (video >= 0) {
        const AVCodecParameters *parameters = in->streams[video]->codecpar;
        if (parameters->codec_id == AV_CODEC_ID_HEVC && parameters->codec_tag == MKTAG('h', 'e', 'v', '1')) {
            remux_as_hvc1(in, fd, facts);
        } else {
            encode_h264(in, video, audio, target_bytes, fd, facts);
        }
    } else if (audio >= 0) {
        encode_mp3(in, audio, target_bytes, fd, facts);
    } else {
        door_failed(facts, "no video or audio stream");
    }
    ffmpeg_close_memory(&in);
}
