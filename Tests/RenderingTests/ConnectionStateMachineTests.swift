import Testing

@testable import Rendering

@Suite struct ConnectionStateMachineTests {
    @Test func numbersCommandsAndResumesEachReplyOnce() {
        var machine = ConnectionStateMachine()
        #expect(machine.commandWillBeSent() == .send(id: 1))
        #expect(machine.commandWillBeSent() == .send(id: 2))
        #expect(machine.replyReceived(id: 2) == .resume(id: 2))
        #expect(machine.replyReceived(id: 2) == .ignore)
        #expect(machine.replyReceived(id: 7) == .ignore)
        #expect(machine.replyReceived(id: 1) == .resume(id: 1))
    }

    @Test func ignoresTheLateReplyOfAnAbandonedCommand() {
        var machine = ConnectionStateMachine()
        _ = machine.commandWillBeSent()
        let first = machine.commandAbandoned(id: 1)
        let second = machine.commandAbandoned(id: 1)
        #expect(first)
        #expect(!second)
        #expect(machine.replyReceived(id: 1) == .ignore)
    }

    @Test func closingFailsWhatWaitsAndEveryLaterCommand() {
        var machine = ConnectionStateMachine()
        _ = machine.commandWillBeSent()
        _ = machine.commandWillBeSent()
        _ = machine.replyReceived(id: 1)
        #expect(machine.closed(reason: "crashed") == .failWaiting(ids: [2], reason: "crashed"))
        #expect(machine.closed(reason: "again") == .none)
        #expect(machine.commandWillBeSent() == .fail(reason: "crashed"))
        #expect(!machine.isOpen)
    }
}
