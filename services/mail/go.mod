module github.com/agentic-app/agentic/services/mail

go 1.26.0

replace github.com/agentic-app/agentic/proto => ../../proto

replace github.com/agentic-app/agentic/services/platform => ../platform

require (
	github.com/emersion/go-message v0.18.2
	golang.org/x/net v0.61.0
)

require golang.org/x/text v0.43.0 // indirect
