"""HandMeThat's goal language and its evaluator over a world state.

Their goals are PDDL formulas over the scene's things: `and`, `or`, `not`, `exists` / `forall` over typed
variables (`(?x - phyobj)`, every thing of the scene), `=`, and atoms:
  type-X / subclass-X / class-X ?o         what it is (class names as in their files or lower case)
  inside ?o ?p, ontop ?o ?p                direct parents only
  open, toggled, cooked, frozen, sliced, soaked, dusty, stained ?o
  size-large, size-small, color-red, color-green, color-blue ?o
  movable, receptacle, has-inside, openable, ... ?o   (the catalog's abilities)
  human-holding ?o, robot-holding ?o, hand-empty (the robot's)
e.g. `(exists (?y - phyobj) (and (type-box ?y) (forall (?x - phyobj) (or (not (type-pad ?x)) (inside ?x ?y)))))`.

`parse` reads the text into a tree (an error names the problem); `compile_formula` turns a tree into a
function of a state, and `holds(text, state)` does both. Quantified variables range over the things of
the state (locations included), in file order, or only over those of the type or subclass the body
requires (`guard`), and `and` / `or` stop at the first decisive part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from homesim.world.handmethat.catalog import BOOLEAN_STATES
from homesim.world.handmethat.state import INSIDE, ONTOP, HmtState

Env = dict[str, str]
Test = Callable[[HmtState, Env], bool]


@dataclass(frozen=True)
class Formula:
    """A node: an operator (`and`, `or`, `not`, `exists`, `forall`) with parts, or an atom (predicate and
    arguments, variables starting with `?`). For a quantifier, `variables` are the bound names."""

    op: str
    parts: tuple[Formula, ...] = ()
    args: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.op in ("exists", "forall"):
            bound = " ".join(f"{v} - phyobj" for v in self.variables)
            return f"({self.op} ({bound}) {self.parts[0]})"
        if self.op in ("and", "or", "not"):
            return f"({self.op} {' '.join(str(p) for p in self.parts)})"
        return f"({' '.join((self.op, *self.args))})"


class FormulaError(ValueError):
    """Text that is not a formula of their goal language."""


_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse(text: str) -> Formula:
    """Their goal text as a formula tree."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        raise FormulaError("empty formula")
    tree, end = _read(tokens, 0)
    if end != len(tokens):
        raise FormulaError(f"text after the formula: {' '.join(tokens[end:end + 5])}")
    return _build(tree)


def _read(tokens: list[str], i: int) -> tuple[object, int]:
    if i >= len(tokens):
        raise FormulaError("unbalanced parentheses: the formula ends too early")
    if tokens[i] == ")":
        raise FormulaError("unbalanced parentheses: a ')' without its '('")
    if tokens[i] != "(":
        return tokens[i], i + 1
    items, i = [], i + 1
    while i < len(tokens) and tokens[i] != ")":
        item, i = _read(tokens, i)
        items.append(item)
    if i >= len(tokens):
        raise FormulaError("unbalanced parentheses: a '(' is never closed")
    return items, i + 1


def _build(tree: object) -> Formula:
    if not isinstance(tree, list) or not tree or not isinstance(tree[0], str):
        raise FormulaError(f"not a formula: {tree!r}")
    op, rest = tree[0], tree[1:]
    if op in ("and", "or"):
        return Formula(op, tuple(_build(p) for p in rest))
    if op == "not":
        if len(rest) != 1:
            raise FormulaError(f"not takes one formula, got {len(rest)}")
        return Formula(op, (_build(rest[0]),))
    if op in ("exists", "forall"):
        if len(rest) != 2 or not isinstance(rest[0], list):
            raise FormulaError(f"{op} takes a variable list and one formula")
        names = [w for w in rest[0] if isinstance(w, str)]
        variables = tuple(w for k, w in enumerate(names) if w.startswith("?") and (k == 0 or names[k - 1] != "-"))
        if not variables:
            raise FormulaError(f"{op} binds no variable")
        return Formula(op, (_build(rest[1]),), variables=variables)
    if any(not isinstance(a, str) for a in rest):
        raise FormulaError(f"atom {op} has a nested argument")
    return Formula(op, args=tuple(rest))  # type: ignore[arg-type]


# --- evaluation ------------------------------------------------------------------------------------


def holds(formula: str | Formula, state: HmtState) -> bool:
    """Whether the formula (text or tree) holds in the state."""
    tree = formula if isinstance(formula, Formula) else _parsed(formula)
    return compile_formula(tree)(state, {})


@lru_cache(maxsize=256)
def _parsed(text: str) -> Formula:
    return parse(text)


@lru_cache(maxsize=256)
def compile_formula(f: Formula) -> Test:
    """The formula as a function of a state and the variables bound so far."""
    if f.op in ("and", "or"):
        parts = [compile_formula(p) for p in f.parts]
        if f.op == "and":
            return lambda s, env: all(p(s, env) for p in parts)
        return lambda s, env: any(p(s, env) for p in parts)
    if f.op == "not":
        inner = compile_formula(f.parts[0])
        return lambda s, env: not inner(s, env)
    if f.op in ("exists", "forall"):
        kind = guard(f) if len(f.variables) == 1 else None
        return _quantifier(f.op, f.variables, compile_formula(f.parts[0]), kind)
    return _atom(f.op, f.args)


def guard(f: Formula) -> tuple[str, str] | None:
    """For a quantifier over one variable whose body requires it to be of a type or subclass (`exists`:
    `(and (type-T ?v) ...)`; `forall`: `(or (not (type-T ?v)) ...)`), ("type", T) or ("subclass", S):
    only those things can matter."""
    body, variable = f.parts[0], f.variables[0]
    forall = f.op == "forall"
    if body.op != ("or" if forall else "and"):
        return None
    for part in body.parts:
        atom = (part.parts[0] if part.op == "not" else None) if forall else part
        if atom is None or atom.args != (variable,):
            continue
        for key in ("type", "subclass"):
            if atom.op.startswith(key + "-"):
                return key, atom.op[len(key) + 1 :].lower()
    return None


def _quantifier(op: str, variables: tuple[str, ...], body: Test, kind: tuple[str, str] | None) -> Test:
    def bindings(s: HmtState, env: Env, k: int):
        if k == len(variables):
            yield env
            return
        for name in s.of_kind(*kind) if kind else s.things:
            yield from bindings(s, {**env, variables[k]: name}, k + 1)

    if op == "exists":
        return lambda s, env: any(body(s, e) for e in bindings(s, env, 0))
    return lambda s, env: all(body(s, e) for e in bindings(s, env, 0))


def _atom(predicate: str, args: tuple[str, ...]) -> Test:
    def value(k: int) -> Callable[[Env], str]:
        a = args[k]
        return (lambda env: env[a]) if a.startswith("?") else (lambda env: a)

    arity = {"inside": 2, "ontop": 2, "=": 2, "hand-empty": 0}.get(predicate, 1)
    if len(args) != arity:
        raise FormulaError(f"{predicate} takes {arity} argument(s), not {len(args)}: ({predicate} {' '.join(args)})")
    if arity == 0:  # the robot's hand
        return lambda s, env: not s.robot.held
    first = value(0)
    if arity == 2:
        second = value(1)
        if predicate == "=":
            return lambda s, env: first(env) == second(env)
        relation = INSIDE if predicate == "inside" else ONTOP

        def related(s: HmtState, env: Env) -> bool:
            t = s.things.get(first(env))
            return t is not None and t.parent == second(env) and t.relation == relation

        return related
    test = _unary(predicate)

    def unary(s: HmtState, env: Env) -> bool:
        name = first(env)
        t = s.things.get(name)
        return test(s, name, t)

    return unary


def _unary(predicate: str) -> Callable:
    for prefix, key in (("type-", "type"), ("subclass-", "subclass"), ("class-", "cls")):
        if predicate.startswith(prefix):
            wanted = predicate[len(prefix) :]
            return lambda s, n, t: t is not None and getattr(t.category, key).lower() == wanted.lower()
    for attribute in ("size", "color"):
        if predicate.startswith(attribute + "-"):
            wanted = predicate[len(attribute) + 1 :]
            return lambda s, n, t: t is not None and getattr(t, attribute) == wanted
    if predicate in BOOLEAN_STATES:
        return lambda s, n, t: t is not None and predicate in t.states
    if predicate == "human-holding":
        return lambda s, n, t: n in s.human.held
    if predicate == "robot-holding":
        return lambda s, n, t: n in s.robot.held
    if predicate == "movable":
        return lambda s, n, t: t is not None and t.category.movable
    if predicate == "receptacle":
        return lambda s, n, t: t is not None and t.category.receptacle
    if predicate.startswith("has-") or predicate.endswith("able"):
        return lambda s, n, t: t is not None and t.category.can(predicate)
    raise FormulaError(f"unknown predicate {predicate!r}")
