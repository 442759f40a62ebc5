package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// sandbox is a running sandbox: the origin clients call (a proxy's when there is one)
// and the sandbox's own, for its controls.
type sandbox struct {
	origin  string
	control string
}

// sandboxes starts one sandbox (and proxy) per set of flags, reused across scenarios.
type sandboxes struct {
	binary  string
	mu      sync.Mutex
	started map[string]*sandbox
	procs   []*exec.Cmd
}

func newSandboxes(binary string) *sandboxes {
	return &sandboxes{binary: binary, started: map[string]*sandbox{}}
}

var originPattern = regexp.MustCompile(`http://[0-9.]+:[0-9]+`)

func (s *sandboxes) get(spec sandboxSpec) (*sandbox, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb, ok := s.started[spec.key()]; ok {
		return sb, nil
	}
	origin, err := s.start(append([]string{"--addr", "127.0.0.1:0"}, spec.args...))
	if err != nil {
		return nil, err
	}
	sb := &sandbox{origin: origin, control: origin}
	if spec.proxy {
		to := strings.TrimPrefix(origin, "http://")
		if sb.origin, err = s.start([]string{"forward", "--to", to}); err != nil {
			return nil, err
		}
	}
	s.started[spec.key()] = sb
	return sb, nil
}

// start runs the binary with args and gives the origin its first line names; the rest of
// its output is drained.
func (s *sandboxes) start(args []string) (string, error) {
	cmd := exec.Command(s.binary, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("cannot start %s (build it with cargo build -p sandbox, or set SANDBOX): %w", s.binary, err)
	}
	s.procs = append(s.procs, cmd)
	lines := bufio.NewScanner(out)
	first := make(chan string, 1)
	go func() {
		if lines.Scan() {
			first <- lines.Text()
		}
		close(first)
		for lines.Scan() { // keep its pipe drained
		}
	}()
	select {
	case line := <-first:
		origin := originPattern.FindString(line)
		if origin == "" {
			return "", fmt.Errorf("%s %v printed %q", s.binary, args, line)
		}
		return origin, nil
	case <-time.After(20 * time.Second):
		return "", fmt.Errorf("%s %v printed nothing in 20 s", s.binary, args)
	}
}

func (s *sandboxes) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cmd := range s.procs {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	s.procs = nil
}

var plain = &http.Client{Timeout: 30 * time.Second}

// call sends a control request (`/_sandbox/...`) to the sandbox itself; an answer other
// than 2xx fails. It gives the answer's JSON, or nil for none.
func (sb *sandbox) call(method, path string, body any, hasBody bool) (any, error) {
	var reader io.Reader
	if hasBody {
		data, err := marshal(body)
		if err != nil {
			return nil, err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, sb.control+path, reader)
	if err != nil {
		return nil, err
	}
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := plain.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, data)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	return parse(data)
}
