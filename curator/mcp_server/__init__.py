"""curator as an MCP server (issue #19): a world's memories as resources and tools for any MCP host.

`server` builds the server over one `Curator` with the official `mcp` SDK (`MCPServer`) and
runs it on stdio or streamable HTTP; `documents` turns what the API returns into the JSON
the resources and tools answer with, and a `CuratorError` into an MCP error carrying its
message. The SDK is curator's optional extra `mcp`: nothing outside this package imports
it, and only `curator mcp` (cli/serve.py) imports this package, when it runs.

May import: the API (`curator.api`) and what lies below it, and `mcp`. Never the command line.
"""
