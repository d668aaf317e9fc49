import Testing
@testable import NottiMedia

/// `--deny-private-networks`: the address table, then the guard on real connections.
@Suite struct AddressGuardTests {
    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("127.255.0.9", "loopback"), ("10.1.2.3", "private"),
        ("172.16.0.1", "private"), ("172.31.255.255", "private"), ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"), ("100.64.0.1", "CGNAT"), ("100.127.255.255", "CGNAT"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("0.0.0.0", "unspecified"),
        ("255.255.255.255", "broadcast"), ("240.0.0.1", "reserved"),
        ("::1", "loopback"), ("::", "unspecified"), ("fc00::1", "private"), ("fd12:3456::1", "private"),
        ("fe80::1", "link-local"), ("ff02::1", "multicast"), ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"), ("64:ff9b::a9fe:a9fe", "link-local"), ("2002:c0a8:0101::1", "private"),
    ])
    func refused(address: String, why: String) {
        #expect(AddressGuard.refusal(for: address) == why)
    }

    @Test(arguments: [
        "8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.63.255.255", "100.128.0.1",
        "192.169.0.1", "93.184.216.34", "2606:4700:4700::1111", "2001:db8::1", "::ffff:8.8.8.8",
    ])
    func allowed(address: String) {
        #expect(AddressGuard.refusal(for: address) == nil)
    }
}

@Suite struct DenyPrivateNetworksTests {
    let server = TestServer.shared

    @Test func loopbackIsRefusedWithBlockedAddressAndNothingIsLeft() throws {
        let run = try ProcessRun.fetch(server.url("/media/logo.png"), ["--deny-private-networks"])
        #expect(run.reason == "blocked_address")
        #expect(run.result.stderr.contains("127.0.0.1 (loopback)"))
        #expect(run.filesLeft.isEmpty)
        #expect(try ProcessRun.fetch(server.url("/media/logo.png")).outcome == "attached", "off by default")
    }

    @Test func aPublicLookingNameThatLeadsToLoopbackIsRefused() throws {
        // The check is on the address connected to, not on the name in the URL.
        let run = try ProcessRun.fetch(
            "https://media.notti.test/media/logo.png",
            ["--deny-private-networks", "--connect-to", "media.notti.test:443:127.0.0.1:\(server.port)"])
        #expect(run.reason == "blocked_address")
    }

    @Test func ipv6LoopbackIsRefused() throws {
        let run = try ProcessRun.fetch("https://[::1]:\(server.port)/media/logo.png", ["--deny-private-networks"])
        #expect(run.reason == "blocked_address")
        #expect(run.result.stderr.contains("::1 (loopback)"))
    }

    @Test func checkAppliesTheGuardToEveryPayload() throws {
        let lines = [payload(url: server.url("/media/logo.png")), payload(url: server.url("/redirect/1/media/photo.jpg"))]
        let result = try CLI.run(
            ["check", "--deny-private-networks", "--cacert", Paths.testCA, "--format", "json", "--summary-only", "-"],
            stdin: lines.joined(separator: "\n"))
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"blocked_address\":2"))
    }
}
