"""The official Python MCP SDK as a host: connect to `effect-read mcp` over stdio, list the tools,
and make the calls given as JSON on stdin ([{"name": ..., "arguments": ...}, ...]). The SDK
checks each successful result's structured content against the tool's outputSchema itself
(ClientSession.call_tool); a result that fails that check is reported as an "error".

Prints one JSON object: the tools as listed (name, input and output schema) and, per call, the
content blocks as the SDK parsed them and the structured content, or the error the SDK raised.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    command, *args = sys.argv[1:]
    calls = json.load(sys.stdin)
    server = StdioServerParameters(command=command, args=args)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = [
                {"name": t.name, "inputSchema": t.input_schema, "outputSchema": t.output_schema}
                for t in listed.tools
            ]
            results = []
            for call in calls:
                try:
                    result = await session.call_tool(call["name"], call["arguments"])
                    results.append({
                        "isError": bool(result.is_error),
                        "content": [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
                        "structuredContent": result.structured_content,
                    })
                except Exception as error:  # the SDK's own checks (output schema) raise here
                    results.append({"error": f"{type(error).__name__}: {error}"})
    print(json.dumps({"tools": tools, "results": results}))


asyncio.run(main())
