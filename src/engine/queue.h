/* The engine's priority queues: one FIFO per priority, highest first
 * (CRITICAL before HIGH before NORMAL before LOW), first-in first-out
 * within one. Intrusive: a queued thing embeds a pq_node, so pushing and
 * popping allocate nothing. Not locked: the engine's mutex guards its
 * queues. */
#ifndef CUZK_ENGINE_QUEUE_H
#define CUZK_ENGINE_QUEUE_H

#include <stddef.h>

#define PQ_PRIORITIES 4 /* cuzk_priority: LOW .. CRITICAL */

typedef struct pq_node {
    struct pq_node *next;
    int priority; /* 0 .. PQ_PRIORITIES - 1, set before the push */
} pq_node;

typedef struct pqueue {
    pq_node *head[PQ_PRIORITIES], *tail[PQ_PRIORITIES];
    unsigned n;        /* nodes queued now */
    unsigned max_seen; /* the most ever queued at once */
} pqueue;

void pq_push(pqueue *q, pq_node *x);
/* The first node of the highest priority, or NULL when empty. */
pq_node *pq_pop(pqueue *q);
/* The first node, in pq_pop's order, for which fits(node, ctx) is
 * nonzero, taken out; NULL when none. */
pq_node *pq_pop_first(pqueue *q, int (*fits)(const pq_node *x, const void *ctx), const void *ctx);
/* 1 if x was in q (and is now out of it), 0 if it was not. */
int pq_remove(pqueue *q, pq_node *x);
/* Nodes queued at one priority. */
unsigned pq_count(const pqueue *q, int priority);

/* The struct holding a node: PQ_OWNER(node, job, queue_node). */
#define PQ_OWNER(node, type, member) ((type *)(void *)((char *)(node) - offsetof(type, member)))

#endif
