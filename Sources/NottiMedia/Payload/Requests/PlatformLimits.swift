/// The limits a platform sets before any phone is reached (SPEC 20), found on the
/// deliveries it builds. APNs's own 4,096 bytes are `Lints`' (every iOS record's).
enum PlatformLimits {
    /// Braze keeps part of APNs's 4 KB for itself (braze.com/docs, "Reducing push payload size").
    static let brazeIOSBytes = 3_807
    /// Braze's Android push object: `alert` plus `extra` (braze.com/docs/api/objects_filters/messaging/android_object).
    static let brazeAndroidBytes = 4_000
    /// FCM's message limit for `data` plus `notification` (firebase.google.com/docs/cloud-messaging/concept-options); Expo's too.
    static let fcmBytes = 4_096
    /// OneSignal's advice: keep the payload under 3,500 bytes (documentation.onesignal.com, "OSNotification payload").
    static let oneSignalAdvisedBytes = 3_500
    /// OneSignal's additional data (`data`) at most 2,048 bytes (the same page).
    static let oneSignalDataBytes = 2_048

    /// The Android message's size against its platform's limit: Braze counts `alert` and `extra` (the delivery's
    /// body and data), the others FCM's `data` plus `notification`, each as compact JSON.
    static func androidMessage(_ payload: Payload, dialect: SendRequest.Dialect) -> [Diagnostic] {
        let limit = dialect == .braze ? brazeAndroidBytes : fcmBytes
        // Serializing grows a value at most sixfold (`Lints.maxSerializedGrowth`): a small request needs no count.
        guard payload.byteCount * Lints.maxSerializedGrowth > limit else { return [] }
        let data = payload.root["data"] ?? .object([])
        let size: Int
        let counted: String
        if dialect == .braze {
            size = (payload.root["notification"]?["body"]?.stringValue?.utf8.count ?? 0) + JSONWriter.compactByteCount(data)
            counted = "android_push's alert and extra are"
        } else {
            size = JSONWriter.compactByteCount(data) + JSONWriter.compactByteCount(payload.root["notification"] ?? .object([]))
            counted = "the Android message's data and notification are"
        }
        guard size > limit else { return [] }
        let owner = dialect == .braze ? "Braze's" : dialect == .expo ? "Expo's (FCM's)" : "FCM's"
        return [Diagnostic(.error, .payloadTooLarge,
            "\(counted) \(size) bytes, over \(owner) \(NumberText.grouped(limit))-byte limit: the platform refuses the message and "
                + "no Android phone receives it; \(DiagnosticCode.payloadTooLarge.fix)")]
    }

    /// The APNs payload's size against a platform limit below APNs's own (over 4,096, `Lints` says it).
    /// `why` is said only when the limit is crossed (built for every request, its text cost OneSignal's row 4%).
    static func iosPayload(_ payload: Payload, over limit: Int, severity: Diagnostic.Severity, code: DiagnosticCode,
                           why: @autoclosure () -> String) -> [Diagnostic] {
        guard payload.byteCount * Lints.maxSerializedGrowth > limit else { return [] }
        let size = JSONWriter.compactByteCount(payload.root)
        guard size > limit, size <= Lints.maxPayloadBytes else { return [] }
        return [Diagnostic(severity, code, "the APNs payload the platform builds is \(size) bytes, \(why()); \(code.fix)")]
    }

    /// OneSignal's additional data over its 2,048 bytes, on each record of the request.
    static func oneSignalData(_ data: JSONValue?) -> [Diagnostic] {
        guard let data, JSONWriter.compactByteCountBound(data) > oneSignalDataBytes else { return [] }
        let size = JSONWriter.compactByteCount(data)
        guard size > oneSignalDataBytes else { return [] }
        return [Diagnostic(.error, .additionalDataTooLarge,
            "data (OneSignal's additional data) is \(size) bytes as compact JSON, over OneSignal's \(NumberText.grouped(oneSignalDataBytes))"
                + "-byte limit: OneSignal refuses the notification; \(DiagnosticCode.additionalDataTooLarge.fix)")]
    }
}
