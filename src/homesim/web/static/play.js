// `homesim play --web`: keys and buttons take actions, a click on the view takes the chosen aimed action at the
// pixel clicked, a text game's commands are typed (or clicked in the list). Actions go to the server one after
// another, in the order they were given; the page shows what the server answers.
"use strict";

const game = document.querySelector(".game");
const keys = JSON.parse(game.dataset.keys);
const choose = JSON.parse(game.dataset.choose);
const view = document.getElementById("view");
const $ = (id) => document.getElementById(id);
let queue = Promise.resolve();
let shown = 0;

function render(state) {
  $("game-step").textContent = state.step;
  $("text").textContent = state.text;
  $("text").scrollTop = $("text").scrollHeight;
  $("message").textContent = state.message || "";
  if (view && state.image) view.src = `${game.dataset.view}?n=${++shown}`;
  const list = $("commands");
  if (list) {
    list.replaceChildren(...state.commands.map((command) => {
      const item = document.createElement("li");
      item.textContent = command;
      item.addEventListener("click", () => act({ action: command }));
      return item;
    }));
    $("admissible").replaceChildren(...state.commands.map((command) => new Option(command)));
  }
  if (state.record) {
    const ended = $("ended");
    ended.hidden = false;
    ended.textContent = `Episode over (${state.ending}): ${state.success ? "success" : "not done"}.` +
      ` Written as record ${state.record} of ${state.where}.`;
    const back = document.createElement("a");
    back.href = "/";
    back.textContent = " Play another.";
    ended.append(back);
  }
}

async function send(given) {
  const body = typeof given === "function" ? await given() : given;
  const answer = await fetch(`${game.dataset.api}/act`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const state = await answer.json();
  if (!answer.ok) {
    $("message").textContent = state.error;
    return;
  }
  render(state);
}

function act(body) {
  queue = queue.then(() => send(body)).catch((error) => { $("message").textContent = String(error); });
}

document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" && event.target.type === "text") return;
  if (event.key in keys) {
    event.preventDefault();
    act({ action: keys[event.key] });
  } else if (event.key in choose) {
    document.querySelector(`input[name=aim][value="${choose[event.key]}"]`).checked = true;
  }
});
for (const button of document.querySelectorAll("button[data-action]")) {
  button.addEventListener("click", () => act({ action: button.dataset.action }));
}
if (view) {
  view.addEventListener("click", (event) => {
    const aim = document.querySelector("input[name=aim]:checked");
    if (!aim) return;
    const box = view.getBoundingClientRect();
    const across = (event.clientX - box.left) / box.width, down = (event.clientY - box.top) / box.height;
    // the frame's size is known only once it has loaded: a click before that waits for it
    act(async () => {
      await view.decode().catch(() => {});
      return { action: aim.value, row: Math.floor(down * view.naturalHeight), column: Math.floor(across * view.naturalWidth) };
    });
  });
}
const say = $("say");
if (say) {
  say.addEventListener("submit", (event) => {
    event.preventDefault();
    const command = $("command").value.trim();
    $("command").value = "";
    if (command) act({ action: command });
  });
}
// the first state is queued like an action, so an early key's answer cannot be overwritten by it
queue = queue.then(() => fetch(game.dataset.api)).then((answer) => answer.json()).then(render)
  .catch((error) => { $("message").textContent = String(error); });
