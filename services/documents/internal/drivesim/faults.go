package drivesim

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
)

// Drive API operations, as counted by Requests and matched by Fault.Op.
const (
	OpGet      = "get"      // files.get
	OpExport   = "export"   // files.export
	OpComments = "comments" // comments.list
	OpReply    = "reply"    // replies.create
)

var ops = []string{OpGet, OpExport, OpComments, OpReply}

// FaultStatuses are the statuses a fault may answer with.
var FaultStatuses = []int{http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests,
	http.StatusInternalServerError, http.StatusServiceUnavailable}

// Fault makes Drive API calls fail. The first matching fault answers the
// call with Status in Google's error shape instead of the real answer.
type Fault struct {
	// Status is 403, 404, 429, 500 or 503.
	Status int `json:"status"`
	// Count is how many calls fail; 0 = every call until ClearFaults.
	Count int `json:"count"`
	// FileID, when set, limits the fault to that file.
	FileID string `json:"fileId,omitempty"`
	// Op, when set, limits the fault to one operation (get, export, comments, reply).
	Op string `json:"op,omitempty"`
	// RetryAfter, when set, is sent as the Retry-After header (seconds or an HTTP date).
	RetryAfter string `json:"retryAfter,omitempty"`
	// Reason overrides the error reason (default per status: 403
	// insufficientFilePermissions, 404 notFound, 429 rateLimitExceeded,
	// 500/503 backendError), e.g. "userRateLimitExceeded" for Drive's
	// rate-limit flavour of 403.
	Reason string `json:"reason,omitempty"`
}

// ValidateFault checks a fault as the admin API does.
func ValidateFault(f Fault) error {
	if !slices.Contains(FaultStatuses, f.Status) {
		return inputErr("status must be one of 403, 404, 429, 500, 503")
	}
	if f.Count < 0 {
		return inputErr("count must be 0 (until cleared) or more")
	}
	if f.Op != "" && !slices.Contains(ops, f.Op) {
		return inputErr("op must be one of get, export, comments, reply")
	}
	if f.RetryAfter != "" {
		if n, err := strconv.Atoi(f.RetryAfter); err != nil || n < 0 {
			if _, err := http.ParseTime(f.RetryAfter); err != nil {
				return inputErr("retryAfter must be a number of seconds or an HTTP date")
			}
		}
	}
	if len(f.Reason) > 100 {
		return inputErr("reason must be at most 100 characters")
	}
	return nil
}

// InjectFault adds a fault (after the existing ones; the first match wins).
func (s *Server) InjectFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Faults returns the active faults; Count is what remains (0 = until cleared).
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, 0, len(s.faults))
	for _, f := range s.faults {
		out = append(out, *f)
	}
	return out
}

// takeFault returns the fault that applies to this call, using up one of its
// count, or nil.
func (s *Server) takeFault(op, fileID string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if (f.Op != "" && f.Op != op) || (f.FileID != "" && f.FileID != fileID) {
			continue
		}
		hit := *f
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
		}
		return &hit
	}
	return nil
}

// writeFault answers with the fault's status in Google's error shape.
func writeFault(w http.ResponseWriter, f *Fault, fileID string) {
	reason, msg := "", ""
	switch f.Status {
	case http.StatusForbidden:
		reason, msg = "insufficientFilePermissions", fmt.Sprintf("The user does not have sufficient permissions for file %s.", fileID)
	case http.StatusNotFound:
		reason, msg = "notFound", fmt.Sprintf("File not found: %s.", fileID)
	case http.StatusTooManyRequests:
		reason, msg = "rateLimitExceeded", "Rate Limit Exceeded"
	case http.StatusServiceUnavailable:
		reason, msg = "backendError", "The service is currently unavailable."
	default:
		reason, msg = "backendError", "Internal Error"
	}
	if f.Reason != "" {
		reason = f.Reason
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	driveError(w, f.Status, reason, msg)
}
