// Shows the reason a sign-in failed (the gateway redirects here with it).
const msg = new URLSearchParams(location.search).get("error");
if (msg) {
  const el = document.getElementById("error");
  el.textContent = msg;
  el.hidden = false;
}
