// Real binary files served by the demo MCP server as `blob` resources.
// Generated once by a script (a 48x48 RGBA PNG); kept as base64 because that is how MCP carries blobs anyway.

export const LOGO_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAAA6klEQVR42u2aUQ6EMAhEvYwn8/gewo2/Js12mZkysJL43fdoUmhx295oFPtxXjNfSWg7GRQ8TYQNvlREDS+TWAUuEcmCp0hkw8MSpQVc4EMSmaB3wBJZ4M8ICbjAj3ailMDPu+AO/1XCCd5eIAo/FKgCP5SoBG8rAFVmVrVckf2wALIoE54qMLM4Gz4kEIVQwNN3YASjgpcJPKFU8NApNCuhzD5cjdGQ3c6YZ7oKntrMZcDT7wRW8NGeaBW89F5skX20M7XIPqO9ZoOXf53738fd8s/rLQYcLUZMbYZ8LcasbQbdbX41eAOMD1nyCTdZUE99AAAAAElFTkSuQmCC';
