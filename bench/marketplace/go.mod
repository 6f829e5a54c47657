module github.com/agentic-app/agentic/bench/marketplace

go 1.26.0

replace github.com/agentic-app/agentic/bench/benchstack => ../benchstack

replace github.com/agentic-app/agentic/proto => ../../proto

require (
	github.com/agentic-app/agentic/bench/benchstack v0.0.0
	github.com/jackc/pgx/v5 v5.12.0
)

require (
	github.com/agentic-app/agentic/proto v0.0.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/grpc v1.85.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
