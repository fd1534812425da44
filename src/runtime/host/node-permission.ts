// The flag that turns on Node's permission model for sandbox workers. Node 20 knows it only as
// `--experimental-permission`; Node 22.13+/23.5+ made it stable as `--permission`, and Node 24
// rejects the old spelling as a bad option. Ask the running Node which one it accepts instead of
// parsing version numbers.
export function permissionFlag(allowed: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string {
  return allowed.has('--permission') ? '--permission' : '--experimental-permission';
}
