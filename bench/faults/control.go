package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// service is one Go service of the local stack (Tilt resource = name).
type service struct {
	name     string
	httpPort int
	grpcPort int
	probe    string // a gateway path served by it ("" = none: its /readyz)
}

var services = []service{
	{"identity", 8101, 9101, "POST /api/user/onboarding"},
	{"catalog", 8102, 9102, "/api/agents"},
	{"documents", 8103, 9103, "/api/agents/{agent}/documents"},
	{"wallet", 8104, 9104, "/api/user/balance"},
	{"analytics", 8105, 9105, "/api/dashboard/stats"},
	{"conversations", 8106, 9106, "/api/agents/{agent}/conversations"},
	{"mail", 8107, 9107, ""},
}

func serviceByName(n string) (service, bool) {
	for _, s := range services {
		if s.name == n {
			return s, true
		}
	}
	return service{}, false
}

// listeners returns the pids listening on TCP port (IPv4 or IPv6), from
// /proc/net/tcp{,6} (LISTEN sockets' inodes) and /proc/*/fd.
func listeners(port int) []int {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A = LISTEN
				continue
			}
			local := fields[1]
			i := strings.LastIndexByte(local, ':')
			if i < 0 {
				continue
			}
			p, err := strconv.ParseInt(local[i+1:], 16, 32)
			if err == nil && int(p) == port {
				inodes[fields[9]] = true
			}
		}
		fh.Close()
	}
	if len(inodes) == 0 {
		return nil
	}
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, fdDir := range procs {
		pid, err := strconv.Atoi(strings.Split(fdDir, "/")[2])
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				if !slices.Contains(pids, pid) {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	slices.Sort(pids)
	return pids
}

func cmdline(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// kill9 sends SIGKILL to every process listening on port; it returns what it killed.
func kill9(port int) ([]string, error) {
	pids := listeners(port)
	if len(pids) == 0 {
		return nil, fmt.Errorf("nothing listens on port %d", port)
	}
	var killed []string
	for _, pid := range pids {
		desc := fmt.Sprintf("pid %d (%s)", pid, cmdline(pid))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return killed, fmt.Errorf("kill %s: %w", desc, err)
		}
		killed = append(killed, desc)
	}
	return killed, nil
}

// waitPortFree waits until nothing listens on port.
func waitPortFree(port int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if len(listeners(port)) == 0 {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// control runs the tools that restart parts of the stack.
type control struct {
	tilt     string // tilt binary
	tiltPort int
	pgVer    string
}

func run(ctx context.Context, timeout time.Duration, name string, args ...string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, name, args...)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// trigger restarts a Tilt resource (`tilt trigger`): for a local resource
// it re-runs its build command and restarts its serve command.
func (c *control) trigger(ctx context.Context, resource string) error {
	out, err := run(ctx, 30*time.Second, c.tilt, "trigger", resource, "--port", strconv.Itoa(c.tiltPort))
	if err != nil {
		return fmt.Errorf("tilt trigger %s: %v: %s", resource, err, out)
	}
	return nil
}

// tiltUp checks the Tilt API answers (the suite restarts through it).
func (c *control) tiltUp(ctx context.Context) error {
	out, err := run(ctx, 15*time.Second, c.tilt, "get", "uiresources", "--port", strconv.Itoa(c.tiltPort), "-o", "name")
	if err != nil {
		return fmt.Errorf("tilt get uiresources (port %d): %v: %s", c.tiltPort, err, out)
	}
	return nil
}

func redisPing(ctx context.Context) bool {
	out, err := run(ctx, 3*time.Second, "redis-cli", "-h", "127.0.0.1", "-p", "6379", "ping")
	return err == nil && out == "PONG"
}

func (c *control) redisDown(ctx context.Context) error {
	out, err := run(ctx, 10*time.Second, "redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave")
	// A successful SHUTDOWN closes the connection: redis-cli reports nothing or an I/O error.
	for range 50 {
		if !redisPing(ctx) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("redis still answers after shutdown nosave: %v %s", err, out)
}

// redisUp restarts Redis the way tilt/scripts/redis.sh does: through the
// Tilt resource (the script starts the server when it is down), or, when
// that has not brought it back within 15 s, with the script's own command.
func (c *control) redisUp(ctx context.Context) (string, error) {
	how := "tilt trigger redis"
	if err := c.trigger(ctx, "redis"); err != nil {
		how = err.Error()
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if redisPing(ctx) {
			return how, nil
		}
	}
	out, err := run(ctx, 10*time.Second, "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379",
		"--save", "", "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log")
	if err != nil {
		return how, fmt.Errorf("redis-server: %v %s", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if redisPing(ctx) {
			return how + " (no Redis after 15 s), then redis-server as tilt/scripts/redis.sh starts it", nil
		}
	}
	return how, fmt.Errorf("redis does not answer after restart")
}

// pgRestart restarts the machine's PostgreSQL cluster the way
// tilt/scripts/postgres.sh manages it (pg_ctlcluster, newest version, main).
func (c *control) pgRestart(ctx context.Context) (string, error) {
	if c.pgVer == "" {
		ents, err := os.ReadDir("/etc/postgresql")
		if err != nil || len(ents) == 0 {
			return "", fmt.Errorf("no /etc/postgresql: %v", err)
		}
		var vs []int
		for _, e := range ents {
			if v, err := strconv.Atoi(e.Name()); err == nil {
				vs = append(vs, v)
			}
		}
		slices.Sort(vs)
		c.pgVer = strconv.Itoa(vs[len(vs)-1])
	}
	args := []string{"--skip-systemctl-redirect", c.pgVer, "main", "restart", "-m", "fast"}
	out, err := run(ctx, 60*time.Second, "pg_ctlcluster", args...)
	return "pg_ctlcluster " + strings.Join(args, " "), func() error {
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}()
}

func pgReady(ctx context.Context) bool {
	_, err := run(ctx, 3*time.Second, "pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432")
	return err == nil
}
