package config

import "github.com/ostset/ostset/internal/quantity"

// ParseCPUs parses a CPU count such as "0.5" or "2" into nano CPUs (Docker's
// NanoCPUs), exactly (see quantity.CPUs).
func ParseCPUs(s string) (int64, error) { return quantity.CPUs(s) }

// ParseMemory parses a memory size into bytes: "1048576", "256Mi", "1g" (see
// quantity.Memory).
func ParseMemory(s string) (int64, error) { return quantity.Memory(s) }
