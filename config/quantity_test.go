package config

import "testing"

func TestParseCPUs(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{in: "0.5", want: 500_000_000},
		{in: "2", want: 2_000_000_000},
		{in: ".25", want: 250_000_000},
		{in: "1.", err: true},
		{in: "1.000000001", want: 1_000_000_001},
		{in: "0.1000000000", want: 100_000_000},
		{in: "0.0000000001", err: true},
		{in: "0", err: true},
		{in: "0.0", err: true},
		{in: "-1", err: true},
		{in: "", err: true},
		{in: ".", err: true},
		{in: "1e3", err: true},
		{in: "abc", err: true},
		{in: "99999999999", err: true},
	}
	for _, tt := range tests {
		got, err := ParseCPUs(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseCPUs(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseMemory(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{in: "1048576", want: 1 << 20},
		{in: "256Mi", want: 256 << 20},
		{in: "1Gi", want: 1 << 30},
		{in: "512M", want: 512 << 20},
		{in: "512m", want: 512 << 20},
		{in: "512mb", want: 512 << 20},
		{in: "1g", want: 1 << 30},
		{in: "1GB", want: 1 << 30},
		{in: "1.5g", want: 3 << 29},
		{in: "64k", want: 64 << 10},
		{in: "64Ki", want: 64 << 10},
		{in: "2Ti", want: 2 << 40},
		{in: "100b", want: 100},
		{in: "256 Mi", want: 256 << 20},
		{in: "0", err: true},
		{in: "-1", err: true},
		{in: "1x", err: true},
		{in: "Mi", err: true},
		{in: "", err: true},
		{in: "99999999999Ti", err: true},
	}
	for _, tt := range tests {
		got, err := ParseMemory(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
