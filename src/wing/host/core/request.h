/* core/request.h for the wing: nothing (the engine's blocking files need none). */
