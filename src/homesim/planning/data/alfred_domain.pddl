;; homesim's ALFRED domain: the high-level steps of ALFRED's expert plans (GotoLocation, Pickup, Put,
;; Open, Close, Toggle, Slice and the Clean / Heat / Cool macros) over homesim's world state.
;;
;; Each action asks for what the engine (homesim.world.dynamics) checks before it acts, or more, so a plan
;; found here executes there: tests/test_pddl.py runs a real planner on real ALFRED problems and steps its
;; plans in the engine. Navigation is abstracted to GotoLocation; the executor walks the shortest path.
;; The actions are plain STRIPS with typing (a shut door is its own fact, `closed`, next to `accessible`),
;; so small pure-Python planners read the domain as it is. Problems (homesim.planning.pddl.export_problem)
;; state their goals with `exists` and, for two objects, `(not (= ?o1 ?o2))`: hence the last requirements.
;;
;; Places: the agent stands by a thing that stands or lies on the floor (`onFloor`: every piece of
;; furniture, and movable objects lying loose), or where it started. It uses what is at its place: the
;; thing itself, what is in or on it, and what is in a container there (a bowl on the counter).
;; Slicing makes two pieces of the whole, pre-declared by the problem: the engine makes more, but no
;; ALFRED goal needs more than two.

(define (domain homesim-alfred)
  (:requirements :strips :typing :existential-preconditions :negative-preconditions :equality)
  (:types
    furniture - thing      ; fixed: receptacles and appliances (counter, fridge, faucet, desk lamp)
    movable - thing        ; what can be picked up, containers such as bowls included
    thing - place          ; where the agent can be: by a thing, or where it started
    place agent class)     ; class: an AI2-THOR object class (Apple, CounterTop, ...)

  (:predicates
    (atLocation ?a - agent ?p - place)
    (onFloor ?t - thing)                       ; furniture, or a movable object lying loose: a place to go to
    (reachable ?t - thing)                     ; the agent can walk to a pose from which it can use ?t
    (inReceptacle ?o - movable ?r - thing)     ; directly in or on
    (holds ?a - agent ?o - movable)
    (handEmpty ?a - agent)
    (receptacle ?r - thing)                    ; things can be put in or on it
    (canContain ?r - thing ?o - movable)       ; the engine lets ?o be put in ?r (fixed receptacles take anything)
    (accessible ?r - thing)                    ; a receptacle one can reach into: no door, or an open one
    (openable ?f - furniture)
    (closed ?f - furniture)
    (toggleable ?f - furniture)
    (isOn ?f - furniture)
    (isOff ?f - furniture)
    (cuts ?k - movable)                        ; a knife
    (sliceable ?w - movable)                   ; a whole that slicing turns into pieces
    (firstSliceOf ?p - movable ?w - movable)
    (secondSliceOf ?p - movable ?w - movable)
    (cleans ?faucet - furniture ?basin - furniture)  ; the basin closest to the faucet: what it washes
    (heats ?f - furniture)                     ; a microwave
    (cools ?f - furniture)                     ; a fridge
    (cleaned ?o - movable)                     ; ALFRED's history sets: treated at some time
    (heated ?o - movable)
    (cooled ?o - movable)
    (ofClass ?t - thing ?c - class))

  (:action GotoLocation
    :parameters (?a - agent ?from - place ?to - thing)
    :precondition (and (atLocation ?a ?from) (onFloor ?to) (reachable ?to))
    :effect (and (not (atLocation ?a ?from)) (atLocation ?a ?to)))

  (:action OpenObject
    :parameters (?a - agent ?f - furniture)
    :precondition (and (atLocation ?a ?f) (openable ?f) (closed ?f))
    :effect (and (accessible ?f) (not (closed ?f))))

  (:action CloseObject
    :parameters (?a - agent ?f - furniture)
    :precondition (and (atLocation ?a ?f) (openable ?f) (accessible ?f))
    :effect (and (closed ?f) (not (accessible ?f))))

  (:action ToggleObjectOn
    :parameters (?a - agent ?f - furniture)
    :precondition (and (atLocation ?a ?f) (toggleable ?f) (isOff ?f))
    :effect (and (isOn ?f) (not (isOff ?f))))

  (:action ToggleObjectOff
    :parameters (?a - agent ?f - furniture)
    :precondition (and (atLocation ?a ?f) (toggleable ?f) (isOn ?f))
    :effect (and (isOff ?f) (not (isOn ?f))))

  ;; Picking up: from what the agent stands by, from a container there, or off the floor.
  (:action PickupObject
    :parameters (?a - agent ?o - movable ?r - thing)
    :precondition (and (atLocation ?a ?r) (inReceptacle ?o ?r) (accessible ?r) (handEmpty ?a))
    :effect (and (holds ?a ?o) (not (inReceptacle ?o ?r)) (not (handEmpty ?a))))

  (:action PickupObjectFromContainer
    :parameters (?a - agent ?o - movable ?m - movable ?r - thing)
    :precondition (and (receptacle ?m) (atLocation ?a ?r) (inReceptacle ?m ?r) (accessible ?r)
                       (inReceptacle ?o ?m) (accessible ?m) (handEmpty ?a))
    :effect (and (holds ?a ?o) (not (inReceptacle ?o ?m)) (not (handEmpty ?a))))

  (:action PickupLooseObject
    :parameters (?a - agent ?o - movable)
    :precondition (and (atLocation ?a ?o) (onFloor ?o) (handEmpty ?a))
    :effect (and (holds ?a ?o) (not (onFloor ?o)) (not (handEmpty ?a))))

  ;; Putting: into what the agent stands by, or into a container there. What is inside the held
  ;; object goes along with it (its inReceptacle facts are untouched).
  (:action PutObject
    :parameters (?a - agent ?o - movable ?r - thing)
    :precondition (and (holds ?a ?o) (atLocation ?a ?r) (accessible ?r) (canContain ?r ?o))
    :effect (and (inReceptacle ?o ?r) (handEmpty ?a) (not (holds ?a ?o))))

  (:action PutObjectInContainer
    :parameters (?a - agent ?o - movable ?m - movable ?r - thing)
    :precondition (and (holds ?a ?o) (receptacle ?m) (atLocation ?a ?r) (inReceptacle ?m ?r) (accessible ?r)
                       (accessible ?m) (canContain ?m ?o))
    :effect (and (inReceptacle ?o ?m) (handEmpty ?a) (not (holds ?a ?o))))

  ;; Slicing, with a knife in hand: the whole is gone and its pieces lie where it lay.
  (:action SliceObject
    :parameters (?a - agent ?w - movable ?p1 - movable ?p2 - movable ?k - movable ?r - thing)
    :precondition (and (holds ?a ?k) (cuts ?k) (sliceable ?w) (firstSliceOf ?p1 ?w) (secondSliceOf ?p2 ?w)
                       (atLocation ?a ?r) (inReceptacle ?w ?r) (accessible ?r))
    :effect (and (inReceptacle ?p1 ?r) (inReceptacle ?p2 ?r) (not (inReceptacle ?w ?r)) (not (sliceable ?w))))

  (:action SliceObjectInContainer
    :parameters (?a - agent ?w - movable ?p1 - movable ?p2 - movable ?k - movable ?m - movable ?r - thing)
    :precondition (and (holds ?a ?k) (cuts ?k) (sliceable ?w) (firstSliceOf ?p1 ?w) (secondSliceOf ?p2 ?w)
                       (receptacle ?m) (atLocation ?a ?r) (inReceptacle ?m ?r) (accessible ?r)
                       (inReceptacle ?w ?m) (accessible ?m))
    :effect (and (inReceptacle ?p1 ?m) (inReceptacle ?p2 ?m) (not (inReceptacle ?w ?m)) (not (sliceable ?w))))

  (:action SliceLooseObject
    :parameters (?a - agent ?w - movable ?p1 - movable ?p2 - movable ?k - movable)
    :precondition (and (holds ?a ?k) (cuts ?k) (sliceable ?w) (firstSliceOf ?p1 ?w) (secondSliceOf ?p2 ?w)
                       (atLocation ?a ?w) (onFloor ?w))
    :effect (and (onFloor ?p1) (onFloor ?p2) (not (onFloor ?w)) (not (sliceable ?w))))

  ;; ALFRED's macros, holding the object by the appliance. Clean: put it in the basin, run the faucet
  ;; (off first if it was on), take it back. Heat: open, put, close, on, off, open, take, close. Cool:
  ;; open, put, close, open, take, close. Each leaves its appliance shut and off.
  (:action CleanObject
    :parameters (?a - agent ?o - movable ?b - furniture ?faucet - furniture)
    :precondition (and (holds ?a ?o) (atLocation ?a ?b) (cleans ?faucet ?b) (canContain ?b ?o))
    :effect (and (cleaned ?o) (isOff ?faucet) (not (isOn ?faucet))))

  (:action HeatObject
    :parameters (?a - agent ?o - movable ?m - furniture)
    :precondition (and (holds ?a ?o) (atLocation ?a ?m) (heats ?m) (canContain ?m ?o))
    :effect (and (heated ?o) (closed ?m) (not (accessible ?m)) (isOff ?m) (not (isOn ?m))))

  (:action CoolObject
    :parameters (?a - agent ?o - movable ?f - furniture)
    :precondition (and (holds ?a ?o) (atLocation ?a ?f) (cools ?f) (canContain ?f ?o))
    :effect (and (cooled ?o) (closed ?f) (not (accessible ?f)))))
