// The MCP SDK and its schema library, a bundle of their own (dist/cli-mcp-sdk.js) that only
// `mcp` loads: they are most of the CLI's bytes, and every other command parsed and ran them
// before doing anything (docs/decisions.md, "The CLI's own time, around its read").
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { z } from 'zod';
