/// When a page being rendered is done, as pure state and decisions (no I/O, no clock of its own:
/// every event carries the time it happened).
///
/// ```
///            load event                   after-load script done
/// loading ─────────────▶ afterLoad ──────────────────────────────▶ settling ──▶ done(settled)
///    │                                                               │
///    │            no request in flight for the settle time ──────────┘
///    └──── the cap passes, in any state ─────────────────────────────────────▶ done(capped)
/// ```
///
/// A page is done once its load event has fired, the after-load script has run (it scrolls to the
/// bottom if asked, and lets the page render frames, so that lazy images near the viewport are
/// asked for, as they are in a browser a user looks at), and no request has been in flight for the
/// settle time. Whatever happens, it is done at the cap.
struct PageLifecycle: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        case loading
        case afterLoad
        case settling
        case done(Outcome)
    }

    /// How a render ended.
    enum Outcome: Sendable, Hashable {
        /// Quiet for the settle time after the load event.
        case settled
        /// The cap passed first.
        case capped
    }

    enum Action: Sendable, Hashable {
        case none
        /// Run the after-load script (scrolling to the bottom if asked), then report
        /// ``PageLifecycle/afterLoadDone(at:)``.
        case runAfterLoad
        /// The page is done.
        case finish(Outcome)
    }

    let settle: Duration
    let deadline: ContinuousClock.Instant
    private(set) var phase: Phase = .loading
    private(set) var inFlight: Set<String> = []
    /// When the last request started or ended, or the last phase began.
    private var lastActivity: ContinuousClock.Instant

    /// A page starting to load at `start`, done at the latest at `start + cap`.
    init(settle: Duration, cap: Duration, start: ContinuousClock.Instant) {
        self.settle = settle
        self.deadline = start + cap
        self.lastActivity = start
    }

    // MARK: - Events

    /// Request `id` started (the browser's network request, or an interception waiting for its answer).
    mutating func requestStarted(_ id: String, at now: ContinuousClock.Instant) -> Action {
        guard !isDone else { return .none }
        inFlight.insert(id)
        lastActivity = max(lastActivity, now)
        return check(now)
    }

    /// Request `id` ended, whatever its outcome.
    mutating func requestEnded(_ id: String, at now: ContinuousClock.Instant) -> Action {
        guard !isDone, inFlight.remove(id) != nil else { return .none }
        lastActivity = max(lastActivity, now)
        return check(now)
    }

    /// Something happened that may lead the page to ask for more, though no request it counts
    /// started or ended (a response's body reached the page after its request had ended).
    mutating func activity(at now: ContinuousClock.Instant) -> Action {
        guard !isDone else { return .none }
        lastActivity = max(lastActivity, now)
        return check(now)
    }

    /// The page's load event fired.
    mutating func loadEventFired(at now: ContinuousClock.Instant) -> Action {
        guard phase == .loading else { return .none }
        lastActivity = max(lastActivity, now)
        if let capped = cap(now) { return capped }
        phase = .afterLoad
        return .runAfterLoad
    }

    /// The after-load script has run.
    mutating func afterLoadDone(at now: ContinuousClock.Instant) -> Action {
        guard phase == .afterLoad else { return .none }
        phase = .settling
        lastActivity = max(lastActivity, now)
        return check(now)
    }

    /// Time passed.
    mutating func tick(at now: ContinuousClock.Instant) -> Action {
        guard !isDone else { return .none }
        return check(now)
    }

    // MARK: - Deciding

    private var isDone: Bool {
        if case .done = phase { return true }
        return false
    }

    private mutating func cap(_ now: ContinuousClock.Instant) -> Action? {
        guard now >= deadline else { return nil }
        phase = .done(.capped)
        return .finish(.capped)
    }

    private mutating func check(_ now: ContinuousClock.Instant) -> Action {
        if let capped = cap(now) { return capped }
        guard phase == .settling, inFlight.isEmpty, now - lastActivity >= settle else { return .none }
        phase = .done(.settled)
        return .finish(.settled)
    }
}
