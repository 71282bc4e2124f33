#include "queue.h"

void pq_push(pqueue *q, pq_node *x)
{
    int p = x->priority;
    x->next = NULL;
    if (q->tail[p])
        q->tail[p]->next = x;
    else
        q->head[p] = x;
    q->tail[p] = x;
    if (++q->n > q->max_seen)
        q->max_seen = q->n;
}

pq_node *pq_pop(pqueue *q)
{
    for (int p = PQ_PRIORITIES - 1; p >= 0; p--) {
        pq_node *x = q->head[p];
        if (x) {
            q->head[p] = x->next;
            if (!q->head[p])
                q->tail[p] = NULL;
            x->next = NULL;
            q->n--;
            return x;
        }
    }
    return NULL;
}

pq_node *pq_pop_first(pqueue *q, int (*fits)(const pq_node *x, const void *ctx), const void *ctx)
{
    for (int p = PQ_PRIORITIES - 1; p >= 0; p--)
        for (pq_node *x = q->head[p]; x; x = x->next)
            if (fits(x, ctx)) {
                pq_remove(q, x);
                return x;
            }
    return NULL;
}

int pq_remove(pqueue *q, pq_node *x)
{
    int p = x->priority;
    pq_node **link = &q->head[p], *prev = NULL;
    while (*link && *link != x) {
        prev = *link;
        link = &(*link)->next;
    }
    if (!*link)
        return 0;
    *link = x->next;
    if (q->tail[p] == x)
        q->tail[p] = prev;
    x->next = NULL;
    q->n--;
    return 1;
}

unsigned pq_count(const pqueue *q, int priority)
{
    unsigned n = 0;
    for (const pq_node *x = q->head[priority]; x; x = x->next)
        n++;
    return n;
}
