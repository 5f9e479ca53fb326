import { useState } from "preact/hooks";
import * as api from "../api";

export function Login(props: { onSignedIn: (u: { username: string; admin: boolean }) => void }) {
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.login(username, password);
      const me = await api.get("/api/v1/me");
      props.onSignedIn({ username: me.user.username, admin: !!me.user.admin });
    } catch (err: any) {
      setError(err?.message ?? String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit} data-testid="login-form">
        <h1>Sign in to Determined</h1>
        <label>
          User name
          <input name="username" value={username} autoFocus onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy} data-testid="sign-in">
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
