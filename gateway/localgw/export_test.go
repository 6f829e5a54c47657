package localgw

// TraceID is traceID, for the tests of package localgw_test.
var TraceID = traceID
