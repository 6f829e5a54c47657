module github.com/agentic-app/agentic/gateway

go 1.26

require gopkg.in/yaml.v3 v3.0.1

require github.com/klauspost/compress v1.20.0
