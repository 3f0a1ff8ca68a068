// The episode page of `homesim view`: the step slider and play/pause move every pane to a step (a pane with
// fewer steps stays on its last): its picture and map are asked for at that step, its action row, sub-goal
// and chart cursor follow, and the transcript shows what was said so far.
"use strict";

const slider = document.getElementById("step");
const shown = document.getElementById("shown-step");
const playButton = document.getElementById("play");
const panes = [...document.querySelectorAll(".pane")];
let timer = null;

function picture() {
  const checked = document.querySelector("input[name=picture]:checked");
  return checked ? checked.value : "rgb";
}

function within(element, at) {
  return +element.dataset.first <= at && at <= +element.dataset.last;
}

function showPane(pane, step) {
  const steps = +pane.dataset.steps;
  if (!steps) return;
  const at = Math.min(step, steps - 1);
  const frame = pane.querySelector("img.frame");
  if (frame) {
    const images = pane.dataset.images.split(",");
    const kind = images.includes(picture()) ? picture() : images[0];
    frame.src = `${pane.dataset.base}/frame/${at}.png?image=${kind}`;
  }
  const map = pane.querySelector("img.map");
  if (map) map.src = `${pane.dataset.base}/map/${at}.png`;
  for (const row of pane.querySelectorAll("tr[data-step]")) {
    row.classList.toggle("current", +row.dataset.step === at);
  }
  for (const part of pane.querySelectorAll("[data-first]")) part.classList.toggle("current", within(part, at));
  for (const said of pane.querySelectorAll(".said")) said.hidden = +said.dataset.at > at;
  for (const box of pane.querySelectorAll(".scroll")) {
    const current = box.querySelector("tr.current");
    box.scrollTop = current ? current.offsetTop - box.clientHeight / 2 : box.scrollHeight;
  }
  for (const cursor of pane.querySelectorAll(".cursor")) {
    const x = steps > 1 ? (+cursor.dataset.width * at) / (steps - 1) : 0;
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
}

function show(step) {
  shown.textContent = step;
  for (const pane of panes) showPane(pane, step);
}

function stop() {
  clearInterval(timer);
  timer = null;
  playButton.textContent = "play";
}

function play() {
  if (+slider.value >= +slider.max) slider.value = 0;
  playButton.textContent = "pause";
  timer = setInterval(() => {
    if (+slider.value >= +slider.max) return stop();
    slider.value = +slider.value + 1;
    show(+slider.value);
  }, 400);
}

slider.addEventListener("input", () => show(+slider.value));
playButton.addEventListener("click", () => (timer ? stop() : play()));
for (const radio of document.querySelectorAll("input[name=picture]")) {
  radio.addEventListener("change", () => show(+slider.value));
}
for (const part of document.querySelectorAll(".timeline [data-first], .segments [data-first]")) {
  part.addEventListener("click", () => {  // a sub-goal's bar or name: to its first step
    slider.value = part.dataset.first;
    show(+slider.value);
  });
}
for (const row of document.querySelectorAll("tr[data-step]")) {
  row.addEventListener("click", () => {
    slider.value = row.dataset.step;
    show(+slider.value);
  });
}
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "TEXTAREA" || (event.target.tagName === "INPUT" && event.target.type !== "range")) return;
  if (event.key === " ") {
    event.preventDefault();
    timer ? stop() : play();
  }
});
show(+slider.value);
