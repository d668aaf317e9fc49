/// The send-time warnings about media that attaches on this machine: what a
/// million phones on real networks will do to it.
enum RiskWarnings {
    /// `not_cacheable` when a CDN will not keep the response; `slow_network` when
    /// even the least download time on `network` is over the policy's deadline.
    static func diagnostics(for facts: MediaFacts, network: NetworkProfile?) -> [Diagnostic] {
        var found: [Diagnostic] = []
        if let why = facts.http?.notCacheableBecause {
            found.append(Diagnostic(.warning, .notCacheable,
                "the media is served with \(why): a CDN will not cache it, so every phone's request at send time reaches "
                    + "the origin; serve it with Cache-Control: public, max-age=86400 and no Set-Cookie"))
        }
        if let network, let least = facts.estimate(on: network) {
            let deadline = Int((facts.policy.timeoutSeconds * 1000).rounded(.up))
            if least > deadline {
                found.append(Diagnostic(.warning, .slowNetwork,
                    "on \(network.name) (\(network.description)) the download takes at least \(least) ms, over the "
                        + "\(NumberText.decimal(facts.policy.timeoutSeconds)) s deadline: users on that network get the push "
                        + "without media; serve a smaller file"))
            }
        }
        return found
    }
}
