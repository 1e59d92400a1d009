package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of CPU times in /proc/PID/stat.
const clockTick = 10 * time.Millisecond

// groupCPU returns a function reporting the user+system CPU time used so far
// by the live processes of process group pgid (a server and any helpers it
// spawned). It lets the report show the CPU each server spends per request,
// a figure far less sensitive to other load on the machine than req/s.
func groupCPU(pgid int) func() time.Duration {
	return func() time.Duration {
		dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
		var total time.Duration
		for _, d := range dirs {
			b, err := os.ReadFile(d)
			if err != nil {
				continue
			}
			if pg, cpu, ok := parseStat(string(b)); ok && pg == pgid {
				total += cpu
			}
		}
		return total
	}
}

// parseStat extracts the process group and utime+stime from a
// /proc/PID/stat line. The command name may hold spaces and parentheses, so
// fields are counted from the last ')'.
func parseStat(line string) (pgrp int, cpu time.Duration, ok bool) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(line[i+1:])
	// f[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
	if len(f) < 13 {
		return 0, 0, false
	}
	pg, err1 := strconv.Atoi(f[2])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	st, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return pg, time.Duration(ut+st) * clockTick, true
}
