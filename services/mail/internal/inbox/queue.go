package inbox

// nudge signals ch without blocking (a pending signal is enough).
func nudge(ch chan<- struct{}) {
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Waker is a wake-up signal between the parts of one process.
type Waker chan struct{}

// NewWaker returns a Waker.
func NewWaker() Waker { return make(Waker, 1) }

// Wake signals w without blocking.
func (w Waker) Wake() { nudge(w) }
