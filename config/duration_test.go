package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestDurationYAML(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "d: 2s", want: 2 * time.Second},
		{in: "d: 500ms", want: 500 * time.Millisecond},
		{in: "d: 1m30s", want: 90 * time.Second},
		{in: `d: "0s"`},
		{in: "d:"},
		{in: "d: 2", err: `line 1: "2" is not a duration`},
		{in: "d: 2.5", err: `line 1: "2.5" is not a duration`},
		{in: "\nd: two", err: `line 2: "two" is not a duration`},
		{in: "d: [1s]", err: `is not a duration`},
	}
	for _, tt := range tests {
		var v struct{ D Duration }
		err := yaml.Unmarshal([]byte(tt.in), &v)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || time.Duration(v.D) != tt.want {
			t.Errorf("%q: got %v, %v; want %v", tt.in, time.Duration(v.D), err, tt.want)
		}
	}
}

func TestDurationRoundTrips(t *testing.T) {
	h := Healthcheck{Test: []string{"NONE"}, Interval: Duration(90 * time.Second), Timeout: Duration(1500 * time.Millisecond)}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"test":["NONE"],"interval":"1m30s","timeout":"1.5s"}`; string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	var back Healthcheck
	if err := json.Unmarshal(b, &back); err != nil || back.Interval != h.Interval || back.Timeout != h.Timeout {
		t.Errorf("json round trip = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"interval":2}`), &back); err == nil {
		t.Error("a JSON number was accepted as a duration")
	}
	y, err := yaml.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "interval: 1m30s") {
		t.Errorf("yaml = %s", y)
	}
	back = Healthcheck{}
	if err := yaml.Unmarshal(y, &back); err != nil || back.Interval != h.Interval {
		t.Errorf("yaml round trip = %+v, %v", back, err)
	}
	if got := Duration(2 * time.Second).String(); got != "2s" {
		t.Errorf("String() = %q", got)
	}
}

func TestIntOrPercent(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "v: 2", want: "2"},
		{in: "v: 25%", want: "25%"},
		{in: `v: "3"`, want: "3"},
		{in: "v:", want: ""},
		{in: "v: 1.5", err: `line 1: "1.5" is not an integer or a percentage`},
		{in: "v: true", err: `"true" is not an integer or a percentage`},
	} {
		var v struct{ V IntOrPercent }
		err := yaml.Unmarshal([]byte(tt.in), &v)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(v.V) != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, v.V, err, tt.want)
		}
	}
	for _, tt := range []struct {
		v    IntOrPercent
		json string
	}{{"2", "2"}, {"25%", `"25%"`}} {
		b, err := json.Marshal(tt.v)
		if err != nil || string(b) != tt.json {
			t.Errorf("json.Marshal(%q) = %s, %v; want %s", tt.v, b, err, tt.json)
		}
		var back IntOrPercent
		if err := json.Unmarshal(b, &back); err != nil || back != tt.v {
			t.Errorf("json.Unmarshal(%s) = %q, %v", b, back, err)
		}
		y, _ := yaml.Marshal(map[string]IntOrPercent{"v": tt.v})
		var yback struct{ V IntOrPercent }
		if err := yaml.Unmarshal(y, &yback); err != nil || yback.V != tt.v {
			t.Errorf("yaml round trip of %q via %q = %q, %v", tt.v, y, yback.V, err)
		}
	}
}
