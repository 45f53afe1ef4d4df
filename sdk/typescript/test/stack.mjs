// The stack the tests run against: BERTH_URL and BERTH_TOKEN name a running
// Berth (sdk/conformance's Go test starts one and runs these tests);
// BERTH_CONTROL is its control server (restart the gateway).
export function stack() {
  const url = process.env.BERTH_URL;
  if (!url) throw new Error("BERTH_URL and BERTH_TOKEN must name a running Berth (go test ./sdk/conformance starts one)");
  return { url, token: process.env.BERTH_TOKEN ?? "" };
}

// restartGateway kills the gateway and starts it again (the control server
// answers once it listens): streams open through it drop mid-way.
export async function restartGateway() {
  const resp = await fetch(process.env.BERTH_CONTROL + "/restart-gateway", { method: "POST" });
  if (resp.status !== 204) throw new Error("restart the gateway: " + (await resp.text()));
}

// uniqueName gives each test its own sandbox name.
export function uniqueName(prefix) {
  return `ts-${prefix}-${Math.random().toString(16).slice(2, 8)}`;
}
