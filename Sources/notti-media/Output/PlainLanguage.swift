import NottiMedia

/// One sentence per code for people who do not read codes (the preview page
/// shows it beside each finding): what the phone does, not what the tool did.
enum PlainLanguage {
    static func line(for code: String) -> String {
        switch code {
        case "no_media": "There is no media in this push."
        case "invalid_payload": "This is not a valid push: APNs would reject it."
        case "invalid_url": "The media link is not a valid web address."
        case "not_https": "The media link is not https: the phone will not download it."
        case "insecure_redirect": "The media link forwards to an insecure address: the phone stops there."
        case "too_many_redirects": "The media link forwards too many times: the phone gives up."
        case "http_error": "The media server answered with an error instead of the file."
        case "empty_media": "The media server sent an empty file."
        case "too_large": "The media file is too large: the phone will not attach it."
        case "timeout": "The media took too long to download: the push arrives without it."
        case "tls_error": "The media server's security certificate is not trusted."
        case "network_error": "The media server could not be reached."
        case "blocked_address": "The media address is not a public one."
        case "write_error": "This computer could not store the file (a local problem, not the media's)."
        case "invalid_media_spec": "The SDK cannot read this push's media settings, so it adds no media."
        case "bundle_resource": "The media is a file the app itself must contain; it is not downloaded."
        case "mutable_content_missing": "iOS never runs the extension for this push, so no media is added."
        case "no_alert": "A silent push: the phone shows nothing and adds no media."
        case "payload_too_large": "The push is over 4 KB: APNs rejects it, nothing arrives."
        case "notification_id_missing": "The SDK cannot report this push as received."
        case "exceeds_ios_limit": "iOS drops an attachment this large: the push shows without it."
        case "unsupported_type": "The phone may not be able to show this kind of file."
        case "type_mismatch": "The file's real type and its label disagree: the phone may show it wrong."
        case "foreign_media_key": "This push carries another SDK's media, which this SDK ignores."
        case "ambiguous_sdk": "This push carries media for several SDKs."
        case "not_cacheable": "A CDN will not cache this file: every phone downloads it from the origin server."
        case "slow_network": "On a slow network the file takes longer than the extension may wait: those users get no media."
        default: "See the message for what to do."
        }
    }
}

/// Byte counts as people read them: `539 B`, `4.5 KB`, `1.2 MB` (decimal, as
/// Apple states its limits).
enum ByteText {
    static func human(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }
}
