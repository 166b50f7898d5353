import Synchronization
import Testing

@testable import Gateway

/// The admission's verdicts on forward requests' hosts: each host looked up once a minute at most.
struct PrivateHostsTests {
    @Test func aHostIsLookedUpOnceAMinuteAndItsVerdictKept() {
        let lookups = Mutex<[String]>([])
        let hosts = PrivateHosts { host in
            lookups.withLock { $0.append(host) }
            return host == "router.lan" ? "192.168.1.1" : nil
        }
        let start = ContinuousClock.now
        for second in 0..<60 {
            let now = start + .seconds(second)
            #expect(hosts.firstPrivateAddress(ofHost: "router.lan", now: now) == "192.168.1.1")
            #expect(hosts.firstPrivateAddress(ofHost: "example.com", now: now) == nil)
        }
        #expect(lookups.withLock { $0 } == ["router.lan", "example.com"])
        // A minute on, each is looked up again
        #expect(hosts.firstPrivateAddress(ofHost: "router.lan", now: start + .seconds(60)) == "192.168.1.1")
        #expect(lookups.withLock { $0 } == ["router.lan", "example.com", "router.lan"])
    }

    @Test func theVerdictsKeptAreBounded() {
        let lookups = Mutex(0)
        let hosts = PrivateHosts { _ in
            lookups.withLock { $0 += 1 }
            return nil
        }
        let now = ContinuousClock.now
        for index in 0..<(PrivateHosts.capacity + 10) {
            _ = hosts.firstPrivateAddress(ofHost: "host\(index).test", now: now)
        }
        // Past the capacity the kept verdicts were dropped: the first host is looked up again
        _ = hosts.firstPrivateAddress(ofHost: "host0.test", now: now)
        #expect(lookups.withLock { $0 } == PrivateHosts.capacity + 11)
    }
}
