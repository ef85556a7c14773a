// SPDX-License-Identifier: GPL-2.0
/*
 * The softverbs generic netlink family: device information, fault
 * injection settings and counters for svctl.  uapi/softverbs-nl.h defines
 * and documents the commands and the attribute tree.
 *
 * Every request is validated strictly against the policies below before a
 * handler runs; handlers add an extack message to every error of their
 * own.  The family is netnsok: a socket finds only the devices of its own
 * network namespace (sv_dev_get_next() filters), and GENL_UNS_ADMIN_PERM
 * checks CAP_NET_ADMIN in the user namespace owning that namespace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "sv.h"
#include "softverbs-nl.h"

static struct genl_family sv_nl_family;

/* not const: Linux 6.1's nla_policy points to a mutable range */
static struct netlink_range_validation sv_nl_ppm_range = {
	.min = 0,
	.max = SV_NL_FAULT_PPM_MAX,
};

/* attributes the kernel sends and never accepts */
#define SV_NL_REPLY_ONLY \
	{ .type = NLA_REJECT, .reject_message = "reply-only attribute in a request" }

static const struct nla_policy sv_nl_fault_policy[SV_NL_FAULT_ATTR_MAX + 1] = {
	[SV_NL_FAULT_ATTR_DROP]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sv_nl_ppm_range),
	[SV_NL_FAULT_ATTR_DUP]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sv_nl_ppm_range),
	[SV_NL_FAULT_ATTR_REORDER] = NLA_POLICY_FULL_RANGE(NLA_U32, &sv_nl_ppm_range),
	[SV_NL_FAULT_ATTR_CORRUPT] = NLA_POLICY_FULL_RANGE(NLA_U32, &sv_nl_ppm_range),
	/* counters are reply-only */
	[SV_NL_FAULT_ATTR_PACKETS]	= SV_NL_REPLY_ONLY,
	[SV_NL_FAULT_ATTR_DROP_HITS]	= SV_NL_REPLY_ONLY,
	[SV_NL_FAULT_ATTR_DUP_HITS]	= SV_NL_REPLY_ONLY,
	[SV_NL_FAULT_ATTR_REORDER_HITS]	= SV_NL_REPLY_ONLY,
	[SV_NL_FAULT_ATTR_CORRUPT_HITS]	= SV_NL_REPLY_ONLY,
};

static const struct nla_policy sv_nl_policy[SV_NL_ATTR_MAX + 1] = {
	[SV_NL_ATTR_DEV_INDEX]	= { .type = NLA_U32 },
	[SV_NL_ATTR_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = SV_NL_DEV_NAME_MAX - 1 },
	[SV_NL_ATTR_FAULT_TX]	= NLA_POLICY_NESTED(sv_nl_fault_policy),
	[SV_NL_ATTR_FAULT_RX]	= NLA_POLICY_NESTED(sv_nl_fault_policy),
	[SV_NL_ATTR_FAULT_SEED]	= { .type = NLA_U64 },
	[SV_NL_ATTR_FAULT_OFF]	= { .type = NLA_FLAG },
	/* reply-only */
	[SV_NL_ATTR_NETDEV_INDEX] = SV_NL_REPLY_ONLY,
	[SV_NL_ATTR_NETDEV_NAME] = SV_NL_REPLY_ONLY,
	[SV_NL_ATTR_STATS]	= SV_NL_REPLY_ONLY,
	[SV_NL_ATTR_STAT]	= SV_NL_REPLY_ONLY,
};

/* fault kinds in sv_fault.h order: setting and counter attributes */
static const struct {
	u16 ppm;
	u16 hits;
} sv_nl_fault_attrs[SV_FAULT_NUM_KINDS] = {
	[SV_FAULT_DROP]	   = { SV_NL_FAULT_ATTR_DROP, SV_NL_FAULT_ATTR_DROP_HITS },
	[SV_FAULT_DUP]	   = { SV_NL_FAULT_ATTR_DUP, SV_NL_FAULT_ATTR_DUP_HITS },
	[SV_FAULT_REORDER] = { SV_NL_FAULT_ATTR_REORDER,
			       SV_NL_FAULT_ATTR_REORDER_HITS },
	[SV_FAULT_CORRUPT] = { SV_NL_FAULT_ATTR_CORRUPT,
			       SV_NL_FAULT_ATTR_CORRUPT_HITS },
};

static const u16 sv_nl_fault_dir_attr[SV_FAULT_NUM_DIRS] = {
	[SV_FAULT_TX] = SV_NL_ATTR_FAULT_TX,
	[SV_FAULT_RX] = SV_NL_ATTR_FAULT_RX,
};

/*
 * The device a request names, referenced (ib_device_put() when done), or
 * an ERR_PTR with an extack message.  Only devices of the socket's
 * namespace are found.
 */
static struct sv_dev *sv_nl_dev_get(struct genl_info *info)
{
	struct nlattr *index = info->attrs[SV_NL_ATTR_DEV_INDEX];
	struct nlattr *name = info->attrs[SV_NL_ATTR_DEV_NAME];
	struct net *net = genl_info_net(info);
	struct sv_dev *sv;

	if (!index && !name) {
		GENL_SET_ERR_MSG(info, "no device given: add SV_NL_ATTR_DEV_INDEX or SV_NL_ATTR_DEV_NAME");
		return ERR_PTR(-EINVAL);
	}
	if (index) {
		sv = sv_dev_get_next(net, nla_get_u32(index));
		if (!sv || sv->ibdev.index != nla_get_u32(index)) {
			if (sv)
				ib_device_put(&sv->ibdev);
			NL_SET_ERR_MSG_ATTR(info->extack, index,
					    "no softverbs device with this index in this network namespace");
			return ERR_PTR(-ENODEV);
		}
		if (name && nla_strcmp(name, dev_name(&sv->ibdev.dev))) {
			ib_device_put(&sv->ibdev);
			NL_SET_ERR_MSG_ATTR(info->extack, name,
					    "device name and index name different devices");
			return ERR_PTR(-EINVAL);
		}
		return sv;
	}

	sv = sv_dev_get_next(net, 0);
	while (sv) {
		u32 next;

		if (!nla_strcmp(name, dev_name(&sv->ibdev.dev)))
			return sv;
		/*
		 * The index before the put: once our reference is gone, an
		 * unregistration waiting for it may free the device.
		 */
		next = sv->ibdev.index + 1;
		ib_device_put(&sv->ibdev);
		sv = sv_dev_get_next(net, next);
	}
	NL_SET_ERR_MSG_ATTR(info->extack, name,
			    "no softverbs device with this name in this network namespace");
	return ERR_PTR(-ENODEV);
}

static int sv_nl_put_fault_dir(struct sk_buff *msg, struct sv_dev *sv,
			       enum sv_fault_dir dir, bool counters)
{
	struct sv_fault_dir_info info;
	struct nlattr *nest;
	bool seeded;
	u64 seed;
	int k;

	sv_fault_get(sv, dir, &info, &seeded, &seed);
	nest = nla_nest_start(msg, sv_nl_fault_dir_attr[dir]);
	if (!nest)
		return -EMSGSIZE;
	for (k = 0; k < SV_FAULT_NUM_KINDS; k++) {
		if (nla_put_u32(msg, sv_nl_fault_attrs[k].ppm, info.ppm[k]))
			goto err_cancel;
		if (counters &&
		    nla_put_u64_64bit(msg, sv_nl_fault_attrs[k].hits,
				      info.hits[k], SV_NL_FAULT_ATTR_PAD))
			goto err_cancel;
	}
	if (counters && nla_put_u64_64bit(msg, SV_NL_FAULT_ATTR_PACKETS,
					  info.seen, SV_NL_FAULT_ATTR_PAD))
		goto err_cancel;
	nla_nest_end(msg, nest);
	if (dir == SV_FAULT_RX && seeded &&
	    nla_put_u64_64bit(msg, SV_NL_ATTR_FAULT_SEED, seed, SV_NL_ATTR_PAD))
		return -EMSGSIZE;
	return 0;

err_cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int sv_nl_put_stats(struct sk_buff *msg, struct sv_dev *sv)
{
	unsigned int i, n = sv_stats_num();
	struct nlattr *nest, *stat;
	u64 *vals;
	int err = -EMSGSIZE;

	vals = kcalloc(n, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	sv_stats_read(sv, vals);

	nest = nla_nest_start(msg, SV_NL_ATTR_STATS);
	if (!nest)
		goto out_free;
	for (i = 0; i < n; i++) {
		stat = nla_nest_start(msg, SV_NL_ATTR_STAT);
		if (!stat ||
		    nla_put_string(msg, SV_NL_STAT_ATTR_NAME, sv_stats_name(i)) ||
		    nla_put_u64_64bit(msg, SV_NL_STAT_ATTR_VALUE, vals[i],
				      SV_NL_STAT_ATTR_PAD)) {
			nla_nest_cancel(msg, nest);
			goto out_free;
		}
		nla_nest_end(msg, stat);
	}
	nla_nest_end(msg, nest);
	err = 0;
out_free:
	kfree(vals);
	return err;
}

/* One reply message about @sv for command @cmd. */
static int sv_nl_fill(struct sk_buff *msg, struct sv_dev *sv, u8 cmd,
		      u32 portid, u32 seq, int flags)
{
	char ndev_name[IFNAMSIZ];
	void *hdr;
	int err = -EMSGSIZE;

	hdr = genlmsg_put(msg, portid, seq, &sv_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, SV_NL_ATTR_DEV_INDEX, sv->ibdev.index) ||
	    nla_put_string(msg, SV_NL_ATTR_DEV_NAME, dev_name(&sv->ibdev.dev)))
		goto err_cancel;

	switch (cmd) {
	case SV_NL_CMD_DEV_GET:
		/* renames happen under RTNL */
		rtnl_lock();
		strscpy(ndev_name, sv->ndev->name, sizeof(ndev_name));
		rtnl_unlock();
		if (nla_put_u32(msg, SV_NL_ATTR_NETDEV_INDEX,
				sv->ndev->ifindex) ||
		    nla_put_string(msg, SV_NL_ATTR_NETDEV_NAME, ndev_name))
			goto err_cancel;
		err = sv_nl_put_fault_dir(msg, sv, SV_FAULT_TX, false) ?:
		      sv_nl_put_fault_dir(msg, sv, SV_FAULT_RX, false);
		break;
	case SV_NL_CMD_FAULT_GET:
		err = sv_nl_put_fault_dir(msg, sv, SV_FAULT_TX, true) ?:
		      sv_nl_put_fault_dir(msg, sv, SV_FAULT_RX, true);
		break;
	case SV_NL_CMD_STATS_GET:
		err = sv_nl_put_stats(msg, sv);
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	if (err)
		goto err_cancel;
	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return err;
}

/* doit of every GET command: one device */
static int sv_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	struct sv_dev *sv;
	int err;

	sv = sv_nl_dev_get(info);
	if (IS_ERR(sv))
		return PTR_ERR(sv);

	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = sv_nl_fill(msg, sv, info->genlhdr->cmd, info->snd_portid,
			 info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out_put;
	}
	err = genlmsg_reply(msg, info);
out_put:
	ib_device_put(&sv->ibdev);
	return err;
}

/* dumpit of every GET command; cb->args[0]: the next device index */
static int sv_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	/* the command from the request header: portable across kernels */
	const struct genlmsghdr *ghdr = nlmsg_data(cb->nlh);
	struct net *net = sock_net(skb->sk);
	struct sv_dev *sv;
	int err = 0;

	while ((sv = sv_dev_get_next(net, cb->args[0]))) {
		err = sv_nl_fill(skb, sv, ghdr->cmd,
				 NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (!err)
			cb->args[0] = sv->ibdev.index + 1;
		ib_device_put(&sv->ibdev);
		if (err)
			break;
	}
	/* a full message ends this part of the dump; the next continues */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int sv_nl_parse_fault_dir(struct genl_info *info,
				 enum sv_fault_dir dir,
				 struct sv_fault_cfg *cfg)
{
	struct nlattr *tb[SV_NL_FAULT_ATTR_MAX + 1];
	struct nlattr *nest = info->attrs[sv_nl_fault_dir_attr[dir]];
	int err, k;

	if (!nest)
		return 0;
	err = nla_parse_nested(tb, SV_NL_FAULT_ATTR_MAX, nest,
			       sv_nl_fault_policy, info->extack);
	if (err)
		return err;
	for (k = 0; k < SV_FAULT_NUM_KINDS; k++) {
		struct nlattr *a = tb[sv_nl_fault_attrs[k].ppm];

		if (!a)
			continue;
		cfg->set[dir][k] = true;
		cfg->ppm[dir][k] = nla_get_u32(a);
	}
	return 0;
}

static int sv_nl_fault_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct sv_fault_cfg cfg = {};
	struct sv_dev *sv;
	int err, i, k;

	if (!tb[SV_NL_ATTR_FAULT_TX] && !tb[SV_NL_ATTR_FAULT_RX] &&
	    !tb[SV_NL_ATTR_FAULT_SEED] && !tb[SV_NL_ATTR_FAULT_OFF]) {
		GENL_SET_ERR_MSG(info, "nothing to set: give SV_NL_ATTR_FAULT_TX, _RX, _SEED or _OFF");
		return -EINVAL;
	}
	if (tb[SV_NL_ATTR_FAULT_OFF])
		for (i = 0; i < SV_FAULT_NUM_DIRS; i++)
			for (k = 0; k < SV_FAULT_NUM_KINDS; k++)
				cfg.set[i][k] = true;	/* to 0 */
	for (i = 0; i < SV_FAULT_NUM_DIRS; i++) {
		err = sv_nl_parse_fault_dir(info, i, &cfg);
		if (err)
			return err;
	}
	if (tb[SV_NL_ATTR_FAULT_SEED]) {
		cfg.has_seed = true;
		cfg.seed = nla_get_u64(tb[SV_NL_ATTR_FAULT_SEED]);
	}

	sv = sv_nl_dev_get(info);
	if (IS_ERR(sv))
		return PTR_ERR(sv);
	err = sv_fault_configure(sv, &cfg);
	if (err)
		GENL_SET_ERR_MSG(info, "device is being removed");
	ib_device_put(&sv->ibdev);
	return err;
}

static const struct genl_ops sv_nl_ops[] = {
	{
		.cmd = SV_NL_CMD_DEV_GET,
		.doit = sv_nl_get_doit,
		.dumpit = sv_nl_get_dumpit,
	},
	{
		.cmd = SV_NL_CMD_FAULT_GET,
		.doit = sv_nl_get_doit,
		.dumpit = sv_nl_get_dumpit,
	},
	{
		.cmd = SV_NL_CMD_FAULT_SET,
		.doit = sv_nl_fault_set_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = SV_NL_CMD_STATS_GET,
		.doit = sv_nl_get_doit,
		.dumpit = sv_nl_get_dumpit,
	},
};

static struct genl_family sv_nl_family __ro_after_init = {
	.name = SV_GENL_NAME,
	.version = SV_GENL_VERSION,
	.maxattr = SV_NL_ATTR_MAX,
	.policy = sv_nl_policy,
	.netnsok = true,
	/* strict validation for every command: unknown attributes fail */
	.resv_start_op = SV_NL_CMD_MAX + 1,
	.module = THIS_MODULE,
	.ops = sv_nl_ops,
	.n_ops = ARRAY_SIZE(sv_nl_ops),
};

int sv_nl_init(void)
{
	return genl_register_family(&sv_nl_family);
}

void sv_nl_exit(void)
{
	genl_unregister_family(&sv_nl_family);
}
