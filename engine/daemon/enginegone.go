package daemon

import (
	"log/slog"
	"time"
)

// engineLink is what the daemon knows of its link to the engine, from its
// event subscription: a subscription that cannot be opened means the engine
// is gone (stopped, restarting, or its socket unreachable). The daemon says so
// once, keeps running and retrying, and says when the engine is back.
type engineLink struct {
	goneSince time.Time
	// tell, if set, is told each change (err: gone, why; nil: back), for
	// the health check.
	tell func(err error)
}

// failed: the subscription could not be opened.
func (l *engineLink) failed(log *slog.Logger, err error, retryIn time.Duration) {
	if l.tell != nil {
		l.tell(err)
	}
	if l.goneSince.IsZero() {
		l.goneSince = time.Now()
		log.Warn("docker engine gone: the daemon keeps running and reconnects once the engine answers", "err", err)
		return
	}
	log.Debug("docker events unavailable", "err", err, "retryIn", retryIn)
}

// opened: the subscription is open.
func (l *engineLink) opened(log *slog.Logger) {
	if !l.goneSince.IsZero() && l.tell != nil {
		l.tell(nil)
	}
	if !l.goneSince.IsZero() {
		log.Info("docker engine back", "after", time.Since(l.goneSince).Round(100*time.Millisecond))
		l.goneSince = time.Time{}
	}
}
