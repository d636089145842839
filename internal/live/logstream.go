package live

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// logStream follows a replica's output for the view's logs pane. A reader
// goroutine keeps the lines that came since the view last took them (at most
// logLines: the pane shows no more) and wakes the view, which takes them all
// at once: a replica that writes fast costs a redraw a frame, not one a line.
type logStream struct {
	mu     sync.Mutex
	lines  []string
	done   bool
	wake   chan struct{}
	cancel context.CancelFunc
	ctx    context.Context // of the reader; tests look at it
}

func newLogStream(cancel context.CancelFunc) *logStream {
	return &logStream{wake: make(chan struct{}, 1), cancel: cancel}
}

// followLogs streams what open returns, a line at a time, until it ends or
// ctx does.
func followLogs(ctx context.Context, open func(ctx context.Context) (io.ReadCloser, error)) *logStream {
	ctx, cancel := context.WithCancel(ctx)
	s := newLogStream(cancel)
	s.ctx = ctx
	go func() {
		defer s.end()
		rc, err := open(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.push("(logs: " + err.Error() + ")")
			}
			return
		}
		defer func() { _ = rc.Close() }()
		stop := context.AfterFunc(ctx, func() { _ = rc.Close() })
		defer stop()
		br := bufio.NewReaderSize(rc, 4096)
		for {
			line, err := br.ReadSlice('\n')
			if len(line) > 0 {
				s.push(strings.ToValidUTF8(strings.TrimRight(string(line), "\r\n"), ""))
			}
			for errors.Is(err, bufio.ErrBufferFull) { // a long line: its first 4 KiB only
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && ctx.Err() == nil {
					s.push("(logs: " + err.Error() + ")")
				}
				return
			}
		}
	}()
	return s
}

func (s *logStream) push(lines ...string) {
	s.mu.Lock()
	s.lines = append(s.lines, lines...)
	s.lines = s.lines[max(0, len(s.lines)-logLines):]
	s.mu.Unlock()
	s.signal()
}

func (s *logStream) end() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.signal()
}

func (s *logStream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next waits for lines (a tea.Cmd): it returns those that came, and whether
// the stream ended.
func (s *logStream) next() tea.Msg {
	for {
		s.mu.Lock()
		lines, done := s.lines, s.done
		s.lines = nil
		s.mu.Unlock()
		if len(lines) > 0 || done {
			return logMsg{from: s, lines: lines, done: done}
		}
		<-s.wake
	}
}

// stop ends the stream; its reader returns at once.
func (s *logStream) stop() {
	if s.cancel != nil {
		s.cancel()
	}
}
