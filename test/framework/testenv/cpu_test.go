package testenv

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCPUNamesChildrenAndCountsTheirTime(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	require.NoError(t, busy.Start())
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
	// sleep adds its arguments up; the name keeps the first alone. (An argument sleep
	// cannot read makes it exit at once, and a child that has exited has no name.)
	idle := exec.Command("sleep", "60", "1")
	require.NoError(t, idle.Start())
	t.Cleanup(func() { _ = idle.Process.Kill(); _ = idle.Wait() })

	// The busy child is named by its program alone, its first argument being a flag; the
	// idle one by its program and first argument. Start returns once exec has begun, and
	// the kernel gives the new program its command line a moment later: until then
	// ReadCPU cannot name the child and leaves it out.
	var before CPU
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var err error
		before, err = ReadCPU()
		require.NoError(c, err)
		assert.Contains(c, before, "sh")
		assert.Contains(c, before, "sleep 60")
	}, 10*time.Second, 10*time.Millisecond)
	assert.Zero(t, before["sleep 60"])
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		after, err := ReadCPU()
		require.NoError(c, err)
		spent := after.Sub(before)
		assert.Greater(c, spent["sh"], 50*time.Millisecond)
	}, 30*time.Second, 50*time.Millisecond)
}

func TestSpentCPUIsWhatTheFunctionBurned(t *testing.T) {
	var sum int
	spent, err := SpentCPU(func() {
		// Spin until the kernel has counted 300 ms of this process's CPU time: on a busy
		// machine 300 ms of wall time may get far less of it. The deadline only keeps a
		// broken clock from hanging the test.
		start := processCPU(t)
		for deadline := time.Now().Add(time.Minute); processCPU(t)-start < 300*time.Millisecond && time.Now().Before(deadline); {
			sum++
		}
	})
	require.NoError(t, err)
	assert.NotZero(t, sum)
	// A clock tick is 10 ms; 300 ms of spinning reads as well over 100 ms.
	assert.Greater(t, spent[Self], 100*time.Millisecond)
}

func TestCPUArithmetic(t *testing.T) {
	before := CPU{Self: time.Second, "etcd": 2 * time.Second}
	after := CPU{Self: 3 * time.Second, "etcd": 2 * time.Second, "prometheus": time.Second}
	spent := after.Sub(before)
	assert.Equal(t, CPU{Self: 2 * time.Second, "etcd": 0, "prometheus": time.Second}, spent)
	assert.Equal(t, CPU{Self: 5 * time.Second, "etcd": 2 * time.Second, "prometheus": 2 * time.Second}, spent.Add(after))
	assert.InDelta(t, 2.0/10*1000, spent.MillisPer(Self, 10), 1e-9)
}

// processCPU is this process's CPU time (user plus system) as getrusage reports it.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
