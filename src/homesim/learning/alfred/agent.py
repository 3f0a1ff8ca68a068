"""The agents of Seq2Seq / Seq2Seq+PM and MOCA checkpoints (`homesim evaluate --agent CKPT.pt`), in mask mode.

They read goal <sep> instructions once per episode, keep their decoders' states across steps, see the
300x300 `rgb` frame downsized to the model's HxW (sampled at the low-resolution pixels' centres, as the
frames were rendered), and take the most likely action. Seq2Seq's interaction target is its mask upsampled
to the frame: the pixels above 0.5, or if none, the TOP_PIXELS most likely ones. MOCA's is an instance of
its predicted class in the frame's segmentation. In sub-goal evaluation the expert's prefix is fed to the
decoders (`follow`), as ALFRED's evaluation teacher-forces it. The checkpoint's ablation is applied here
too, so an agent never sees what it was trained without.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from homesim.agents.protocol import AgentAction, TaskSpec, filter_observation, filter_task
from homesim.envs.alfred.embodied import semantic_classes
from homesim.learning.alfred.moca import Moca, MocaConfig
from homesim.learning.alfred.seq2seq import START, Seq2Seq, Seq2SeqConfig, language_ids
from homesim.learning.vocab import Vocab
from homesim.render import ALFRED
from homesim.world.actions import ACTIONS, INTERACT_ACTIONS, NAVIGATION_ACTIONS

TOP_PIXELS = 100  # a mask with no pixel above 0.5 still points at its likeliest object


def downsize(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An HxWx3 frame at `size`, each pixel the one under the smaller pixel's centre (nearest sampling)."""
    rows = ((np.arange(size[0]) + 0.5) * rgb.shape[0] / size[0]).astype(int)
    columns = ((np.arange(size[1]) + 0.5) * rgb.shape[1] / size[1]).astype(int)
    return rgb[rows][:, columns]


def interaction_mask(logits: torch.Tensor, shape: tuple[int, int]) -> np.ndarray:
    """Mask logits [h, w] as a boolean mask of the frame's `shape`."""
    scores = F.interpolate(logits[None, None], size=shape, mode="bilinear", align_corners=False)[0, 0].numpy()
    mask = scores > 0.0  # probability above 0.5
    if not mask.any():
        mask = np.zeros(scores.size, dtype=bool)
        mask[np.argpartition(-scores.ravel(), TOP_PIXELS)[:TOP_PIXELS]] = True
        mask = mask.reshape(shape)
    return mask


class Decoder:
    """One Seq2Seq decoder's memory through an episode."""

    def __init__(self, model: Seq2Seq, ids: list[int]) -> None:
        self.model = model
        self.words, self.pad, self.state = model.encode_language(torch.tensor([ids]), torch.tensor([len(ids)]))

    def step(self, frame: torch.Tensor, previous: torch.Tensor) -> torch.Tensor:
        visual = self.model.encode_frames(frame)
        feature, self.state = self.model.decode_step(self.words, self.pad, visual, previous, self.state)
        return feature


class Seq2SeqAgent:
    interaction = "mask"  # it aims with pixel masks (the evaluator asks for mask mode)

    def __init__(self, model: Seq2Seq, vocab: Vocab) -> None:
        self.models, self.vocab = [model.eval()], vocab
        self.config = model.config
        self.ablation = model.config.ablation
        self.observations = ("rgb",) if model.config.sees else ()  # the images it reads (the evaluator renders them)

    def reset(self, task: TaskSpec) -> None:
        task = filter_task(self.ablation, task)
        instructions: list[int] = []
        for i, directive in enumerate(task.instructions):
            instructions += ([Vocab.SEP] if i else []) + self.vocab.encode(directive)
        ids = language_ids(self.vocab.encode(task.goal), instructions, self.ablation, Vocab.SEP)
        with torch.no_grad():
            self.decoders = [Decoder(model, ids) for model in self.models]
        self.previous = torch.tensor([START])

    def follow(self, observation: dict, action: str) -> None:
        """A teacher-forced step: the decoders see the frame and, next step, the expert's `action`."""
        with torch.no_grad():
            self._features(observation)
        self.previous = torch.tensor([ACTIONS.index(action)])

    def act(self, observation: dict) -> AgentAction:
        with torch.no_grad():
            features = self._features(observation)
            action = self._choose(features[0], observation)
            self.previous = torch.tensor([action])
            name = ACTIONS[action]
            if name not in INTERACT_ACTIONS:
                return AgentAction(name)
            return AgentAction(name, self._target(features, observation))

    def _features(self, observation: dict) -> list[torch.Tensor]:
        observation = filter_observation(self.ablation, observation)
        if self.config.sees and "rgb" not in observation:
            raise ValueError("this checkpoint sees rgb frames: evaluate it with --pixels rgb")
        size = self.config.size
        frame = downsize(observation["rgb"], size) if self.config.sees else np.zeros((*size, 3), np.uint8)
        frame = torch.from_numpy(frame).permute(2, 0, 1)[None]
        return [decoder.step(frame, self.previous) for decoder in self.decoders]

    def _choose(self, feature: torch.Tensor, observation: dict) -> int:
        return int(self.models[0].actor(feature).argmax(-1))

    def _target(self, features: list[torch.Tensor], observation: dict) -> np.ndarray:
        shape = observation["rgb"].shape[:2] if "rgb" in observation else (ALFRED["height"], ALFRED["width"])
        return interaction_mask(self.models[0].masks(features[0])[0], shape)


class MocaAgent(Seq2SeqAgent):
    """MOCA's policy stream chooses the action, with its obstruction evasion: a navigation action that just
    failed is not chosen again until an action succeeds (the next most likely is taken). Its perception
    stream chooses the class, among the classes the frame shows; the instance is, as MOCA's instance
    association, the one nearest the last interaction's if the class is the same, else the largest."""

    def __init__(self, model: Moca, vocab: Vocab) -> None:
        super().__init__(model.policy, vocab)
        self.observations = (*self.observations, "segmentation", "semantic")  # it picks instances of its class
        self.models.append(model.perception.eval())
        self.classifier = model.classifier.eval()
        if tuple(model.config.classes[1:]) != semantic_classes():
            raise ValueError("this MOCA checkpoint's classes are not the ALFRED env's semantic classes")

    def reset(self, task: TaskSpec) -> None:
        super().reset(task)
        self.blocked: set[int] = set()
        self.last_target: tuple[int, np.ndarray] | None = None  # (semantic class, centroid)

    def _choose(self, feature: torch.Tensor, observation: dict) -> int:
        previous = int(self.previous)
        if observation.get("last_action_success") is False and previous != START:
            if ACTIONS[previous] in NAVIGATION_ACTIONS:
                self.blocked.add(previous)
        elif observation.get("last_action_success"):
            self.blocked.clear()
        logits = self.models[0].actor(feature)[0]
        logits[list(self.blocked)] = float("-inf")
        return int(logits.argmax())

    def _target(self, features: list[torch.Tensor], observation: dict) -> np.ndarray:
        for key in ("segmentation", "semantic"):
            if key not in observation:
                raise ValueError("a MOCA checkpoint picks instances: evaluate it with --pixels rgb,segmentation,semantic")
        semantic, instances = observation["semantic"], observation["segmentation"]
        shown = np.unique(semantic[semantic >= 0])
        if shown.size == 0:  # nothing to point at: a mask over the whole frame fails as ALFRED's would
            return np.ones(semantic.shape, dtype=bool)
        scores = self.classifier(features[1])[0, 1:].numpy()  # semantic index k is class k + 1
        chosen = int(shown[np.argmax(scores[shown])])
        ids, areas = np.unique(instances[semantic == chosen], return_counts=True)
        centroids = [np.argwhere(instances == i).mean(0) for i in ids]
        if self.last_target is not None and self.last_target[0] == chosen:
            pick = int(np.argmin([np.linalg.norm(c - self.last_target[1]) for c in centroids]))
        else:
            pick = int(np.argmax(areas))
        self.last_target = (chosen, centroids[pick])
        return instances == ids[pick]


def _loaded(model: torch.nn.Module, checkpoint: dict) -> torch.nn.Module:
    # one step of one episode is too small to share between threads; on a loaded machine torch's threads
    # spin against other processes (measured: 20x slower training at 2 threads than at 1 under load 20)
    torch.set_num_threads(1)
    model.load_state_dict(checkpoint["model"])
    return model


def seq2seq_agent(checkpoint: dict, seed: int = 0) -> Seq2SeqAgent:
    """The agent of a finished `homesim train --agent seq2seq|seq2seq_pm` checkpoint (greedy: the seed
    changes nothing)."""
    describe = checkpoint["describe"]
    model = _loaded(Seq2Seq(Seq2SeqConfig.from_dict(describe["model"])), checkpoint)
    return Seq2SeqAgent(model, Vocab.from_dict(describe["vocab"]))


def moca_agent(checkpoint: dict, seed: int = 0) -> MocaAgent:
    """The agent of a finished `homesim train --agent moca` checkpoint (greedy: the seed changes nothing)."""
    describe = checkpoint["describe"]
    model = _loaded(Moca(MocaConfig.from_dict(describe["model"])), checkpoint)
    return MocaAgent(model, Vocab.from_dict(describe["vocab"]))
