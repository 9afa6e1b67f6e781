// The login form: the token goes to POST /api/login, which answers with a session cookie; then
// the author's page. The token is never kept by the page.
const form = document.getElementById("login");
const why = document.getElementById("why");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  why.hidden = true;
  const token = form.elements.token.value.trim();
  try {
    const res = await fetch("api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
    location.href = body.role === "organizer" ? "console.html" : "author.html";
  } catch (err) {
    why.textContent = `Not logged in: ${err.message}`;
    why.hidden = false;
  } finally {
    form.elements.token.value = "";
  }
});
