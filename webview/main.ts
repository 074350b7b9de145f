// The lock detail panel (issue 6). Placeholder entry so the bundle exists.
export {};
