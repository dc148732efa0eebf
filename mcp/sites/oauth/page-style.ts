/**
 * The consent and error pages' style: the portal's tokens and components (portal/src/styles.css:
 * top bar, panel, primary and secondary buttons, fields), inline because these pages load
 * nothing else (CSP `default-src 'none'; style-src 'unsafe-inline'`). Responsive from 360 px.
 */
export const PAGE_STYLE = `:root{--bg:#f6f7f9;--panel:#fff;--text:#1c2230;--muted:#5b6576;--line:#dde1e8;--accent:#2457d6;--accent-soft:#e8eefc;--danger:#b42318;--danger-soft:#fdecea;--radius:8px;--focus:0 0 0 3px #ffbf47;color-scheme:light;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text)}a{color:var(--accent)}
code{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;font-size:.9em;background:#f1f3f7;padding:0 .25rem;border-radius:4px;overflow-wrap:anywhere}
:focus-visible{outline:none;box-shadow:var(--focus);border-radius:4px}
.topbar{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:.6rem 1.5rem;background:#141a2a;color:#fff;flex-wrap:wrap}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.1rem}
.logo{width:1.2rem;height:1.2rem;border-radius:4px;background:linear-gradient(135deg,#4c7dff,#2457d6);display:inline-block}
.whoami{font-size:.9rem;color:#dfe6f5}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem 1.5rem}
h1{font-size:1.35rem;margin:.5rem 0 1rem;line-height:1.3}h2{font-size:1rem;margin:0 0 .5rem}
.eyebrow{margin:0;font-size:.8rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}
.eyebrow.refused{color:var(--danger)}.lead{font-size:1.05rem}
.muted{color:var(--muted)}.small{font-size:.85rem}
.client{margin:.75rem 0 0}.client p{margin:.25rem 0 0}
.client-host,.client-name{display:inline-block;font-size:1.5rem;font-weight:700;overflow-wrap:anywhere}
.client-host{padding:.1rem .6rem;border-radius:6px;background:var(--accent-soft);color:var(--accent);font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;font-size:1.3rem}
.summary{background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1rem}
.summary h2{font-weight:500;line-height:1.45}.can{margin:.25rem 0 .5rem;padding-left:1.2rem}.can li{margin:.15rem 0}.summary p{margin:.25rem 0 0}
p.error{background:var(--danger-soft);color:var(--danger);padding:.6rem .8rem;border-radius:6px}
details{margin:0 0 1rem}summary{cursor:pointer;color:var(--accent);font-weight:600;padding:.25rem 0}
fieldset{border:1px solid var(--line);border-radius:var(--radius);padding:.5rem 1rem .75rem;margin:.75rem 0 0}
legend{font-weight:600;padding:0 .3rem}
.option{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem;margin:.45rem 0}
.option span{flex:1 1 12rem}
input[type=checkbox],input[type=radio]{width:1.05rem;height:1.05rem;accent-color:var(--accent);margin:0}
input[type=text]{font:inherit;padding:.35rem .6rem;border:1px solid #b7bfcc;border-radius:6px;background:#fff;color:var(--text);min-height:2.25rem;width:14rem;max-width:100%;margin-left:1.45rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
button{font:inherit;display:inline-flex;align-items:center;justify-content:center;padding:.5rem 1.25rem;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--text);cursor:pointer;min-height:2.5rem;min-width:7rem}
button:hover{border-color:#b7bfcc;background:#fafbfc}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff;font-weight:600}button.primary:hover{background:#1d48b5}
@media (max-width:480px){.topbar{padding:.6rem 1rem}main{padding:1rem .75rem 2rem}.panel{padding:1rem}.actions button{flex:1 1 100%}}`;
