// Command app is the program of the integration tests' FROM-scratch image.
//
//	app                 serve HTTP on :8080 until SIGTERM/SIGINT, then exit 0
//	app health          exit 0 if http://127.0.0.1:8080/healthz answers 200
//	app fail            exit 1 (a healthcheck that never passes)
//	app resolve NAME... look the names up in DNS; exit 1 if one does not resolve
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		os.Exit(subcommand(os.Args[1], os.Args[2:]))
	}
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(1)
	}
}

func subcommand(cmd string, args []string) int {
	switch cmd {
	case "health":
		c := http.Client{Timeout: 2 * time.Second}
		resp, err := c.Get("http://127.0.0.1:8080/healthz")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 1
		}
		return 0
	case "fail":
		fmt.Println("failing on purpose")
		return 1
	case "resolve":
		code := 0
		for _, name := range args {
			addrs, err := net.LookupHost(name)
			if err != nil {
				fmt.Println(name, err)
				code = 1
				continue
			}
			fmt.Println(name, addrs)
		}
		return code
	}
	fmt.Fprintln(os.Stderr, "app: unknown subcommand", cmd)
	return 2
}

func serve() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	host, _ := os.Hostname()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, host) })
	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Println("listening on :8080 as", host)
	fmt.Fprintln(os.Stderr, "stderr works too")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Println("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
