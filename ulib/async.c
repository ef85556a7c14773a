// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Asynchronous events.
 *
 * The async fd comes from the GET_CONTEXT response.  Each read() returns
 * one struct ib_uverbs_async_event_desc; its element is, depending on the
 * event, the user handle we gave the kernel when creating the CQ/QP/SRQ/WQ
 * (the object's address), or the port number.  The fd follows the caller's
 * O_NONBLOCK setting: blocking by default, EAGAIN when set and empty.
 *
 * Acks count per object; destroy (later, in the object files) waits on the
 * object's cond until every event handed out was acked, so an event never
 * points at freed memory.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "ulib.h"

enum element_kind { EL_NONE, EL_CQ, EL_QP, EL_SRQ, EL_WQ, EL_PORT };

static enum element_kind element_of(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return EL_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return EL_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return EL_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return EL_WQ;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return EL_PORT;
	case IBV_EVENT_DEVICE_FATAL:
	default:
		return EL_NONE;
	}
}

SV_EXPORT int ibv_get_async_event(struct ibv_context *context,
				  struct ibv_async_event *event)
{
	struct sv_context *ctx = to_sv_context(context);
	struct ib_uverbs_async_event_desc desc;
	ssize_t n;

	n = read(context->async_fd, &desc, sizeof(desc));
	if (n < 0)
		return -1;
	if (n != sizeof(desc)) {
		errno = EIO;
		return -1;
	}

	event->event_type = (enum ibv_event_type)desc.event_type;
	event->element.cq = NULL;
	switch (element_of(event->event_type)) {
	case EL_CQ:
		event->element.cq = (struct ibv_cq *)(uintptr_t)desc.element;
		break;
	case EL_QP:
		event->element.qp = (struct ibv_qp *)(uintptr_t)desc.element;
		break;
	case EL_SRQ:
		event->element.srq = (struct ibv_srq *)(uintptr_t)desc.element;
		break;
	case EL_WQ:
		event->element.wq = (struct ibv_wq *)(uintptr_t)desc.element;
		break;
	case EL_PORT:
		event->element.port_num = (int)desc.element;
		break;
	case EL_NONE:
		break;
	}

	if (ctx->ops->async_event)
		ctx->ops->async_event(context, event);
	return 0;
}

static void ack(pthread_mutex_t *mutex, pthread_cond_t *cond,
		uint32_t *completed)
{
	pthread_mutex_lock(mutex);
	++*completed;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
}

SV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (element_of(event->event_type)) {
	case EL_CQ: {
		struct ibv_cq *cq = event->element.cq;

		ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case EL_QP: {
		struct ibv_qp *qp = event->element.qp;

		ack(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case EL_SRQ: {
		struct ibv_srq *srq = event->element.srq;

		ack(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	case EL_WQ: {
		struct ibv_wq *wq = event->element.wq;

		ack(&wq->mutex, &wq->cond, &wq->events_completed);
		break;
	}
	case EL_PORT:
	case EL_NONE:
		break;
	}
}
