package compose

import (
	"io"
	"sync"

	"github.com/sirupsen/logrus"
)

// compose-go reports its warnings (a variable not set, an obsolete field)
// through logrus's standard logger. They go to Options.Warn instead, so that
// they read as ostset's other warnings.
var (
	warnMu   sync.Mutex
	warnTo   func(string)
	warnOnce sync.Once
)

type warnHook struct{}

func (warnHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (warnHook) Fire(e *logrus.Entry) error {
	warnMu.Lock()
	defer warnMu.Unlock()
	if warnTo != nil {
		warnTo(e.Message)
	}
	return nil
}

// routeWarnings sends the loader's warnings to warn (nil: nowhere) until the
// returned function is called.
func routeWarnings(warn func(string)) (restore func()) {
	warnOnce.Do(func() {
		logrus.SetOutput(io.Discard)
		logrus.AddHook(warnHook{})
	})
	warnMu.Lock()
	prev := warnTo
	warnTo = warn
	warnMu.Unlock()
	return func() {
		warnMu.Lock()
		warnTo = prev
		warnMu.Unlock()
	}
}
