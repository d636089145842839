package userunit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Label is the launchd job of the daemon on macOS.
const Label = "io.ostset.daemon"

// DefaultPath is where the unit goes for goos: the systemd user unit under
// configHome (XDG_CONFIG_HOME or ~/.config), the launchd agent under
// ~/Library/LaunchAgents on macOS; "" on Windows, which has neither.
func DefaultPath(goos, home, configHome string) string {
	switch goos {
	case "windows":
		return ""
	case "darwin":
		return path.Join(home, "Library", "LaunchAgents", Label+".plist")
	}
	return path.Join(configHome, "systemd", "user", Name)
}

// domain is launchctl's domain of the user's login session.
func (u *Unit) domain() string { return "gui/" + strconv.Itoa(u.UID) }

// plist is the launchd agent: it runs the daemon at login and again when it
// fails (as systemd's Restart=on-failure), at most every 5 s; its output goes
// to ~/Library/Logs/ostset-daemon.log.
func (u *Unit) plist() string {
	esc := func(s string) string {
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by 'ostset daemon install'; 'ostset daemon uninstall' removes it. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + Label + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	args := []string{u.Binary, "daemon"}
	if u.StateDir != "" {
		args = append(args, "--state-dir", u.StateDir)
	}
	for _, a := range args {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", esc(a))
	}
	b.WriteString("\t</array>\n")
	if len(u.Env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, e := range u.Env {
			k, v, _ := strings.Cut(e, "=")
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n\t\t<string>%s</string>\n", esc(k), esc(v))
		}
		b.WriteString("\t</dict>\n")
	}
	logFile := path.Join(path.Dir(path.Dir(u.Path)), "Logs", "ostset-daemon.log") // ~/Library/Logs
	b.WriteString(`	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>5</integer>
	<key>StandardOutPath</key>
	<string>` + esc(logFile) + `</string>
	<key>StandardErrorPath</key>
	<string>` + esc(logFile) + `</string>
</dict>
</plist>
`)
	return b.String()
}

// windows says what to do on Windows, which has no user service manager that
// ostset drives: Task Scheduler runs the daemon at logon.
func (u *Unit) windows() error {
	cmd := fmt.Sprintf(`schtasks /Create /SC ONLOGON /TN ostset-daemon /TR "\"%s\" daemon"`, u.Binary)
	if u.StateDir != "" {
		cmd = fmt.Sprintf(`schtasks /Create /SC ONLOGON /TN ostset-daemon /TR "\"%s\" daemon --state-dir \"%s\""`, u.Binary, u.StateDir)
	}
	return fmt.Errorf("daemon install: Windows has no user service manager that ostset drives; run 'ostset daemon' in a terminal you keep open, or have Task Scheduler start it at logon: %s (and 'schtasks /Delete /TN ostset-daemon' to remove it)", cmd)
}
