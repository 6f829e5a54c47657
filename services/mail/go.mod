module github.com/agentic-app/agentic/services/mail

go 1.26.0

replace github.com/agentic-app/agentic/proto => ../../proto

replace github.com/agentic-app/agentic/services/platform => ../platform

require (
	github.com/emersion/go-message v0.18.2
	golang.org/x/net v0.61.0
)

require (
	blitiri.com.ar/go/spf v1.6.0 // indirect
	github.com/emersion/go-msgauth v0.7.0 // indirect
	github.com/emersion/go-sasl v0.0.0-20241020182733-b788ff22d5a6 // indirect
	github.com/emersion/go-smtp v0.25.1 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/text v0.43.0 // indirect
)
