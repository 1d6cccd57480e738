CREATE TABLE `characters` (
  `guid` int(10) NOT NULL,
  `account` int(10) NOT NULL,
  `name` varchar(12) NOT NULL COLLATE NOCASE,
  `race` tinyint(3) NOT NULL,
  `level` tinyint(3) NOT NULL,
  `money` int(10) NOT NULL,
  PRIMARY KEY (`guid`),
  UNIQUE (`name`)
);
CREATE TABLE `item_instance` (
  `guid` int(10) NOT NULL,
  `itemEntry` int(10) NOT NULL,
  `owner_guid` int(10) NOT NULL,
  `count` int(10) NOT NULL,
  PRIMARY KEY (`guid`)
);
CREATE TABLE `character_inventory` (
  `guid` int(10) NOT NULL,
  `bag` int(10) NOT NULL,
  `slot` tinyint(3) NOT NULL,
  `item` int(10) NOT NULL,
  PRIMARY KEY (`item`),
  UNIQUE (`guid`, `bag`, `slot`)
);
CREATE TABLE `mail` (
  `id` int(10) NOT NULL,
  `sender` int(10) NOT NULL,
  `receiver` int(10) NOT NULL,
  `subject` varchar(200) DEFAULT NULL COLLATE NOCASE,
  PRIMARY KEY (`id`)
);
CREATE TABLE `mail_items` (
  `mail_id` int(10) NOT NULL,
  `item_guid` int(10) NOT NULL,
  `receiver` int(10) NOT NULL,
  PRIMARY KEY (`item_guid`)
);
CREATE TABLE `guild` (
  `guildid` int(10) NOT NULL,
  `name` varchar(24) NOT NULL COLLATE NOCASE,
  `leaderguid` int(10) NOT NULL,
  PRIMARY KEY (`guildid`),
  UNIQUE (`name`)
);
CREATE TABLE `guild_member` (
  `guildid` int(10) NOT NULL,
  `guid` int(10) NOT NULL,
  `rank` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`)
);
CREATE TABLE `guild_rank` (
  `guildid` int(10) NOT NULL,
  `rid` tinyint(3) NOT NULL,
  `rname` varchar(20) NOT NULL COLLATE NOCASE,
  PRIMARY KEY (`guildid`, `rid`)
);
CREATE TABLE `character_spell` (
  `guid` int(10) NOT NULL,
  `spell` int(10) NOT NULL,
  `active` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`, `spell`)
);
CREATE TABLE `character_achievement` (
  `guid` int(10) NOT NULL,
  `achievement` smallint(5) NOT NULL,
  `date` int(10) NOT NULL,
  PRIMARY KEY (`guid`, `achievement`)
);
CREATE TABLE `character_queststatus` (
  `guid` int(10) NOT NULL,
  `quest` int(10) NOT NULL,
  `status` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`, `quest`)
);
CREATE TABLE `character_reputation` (
  `guid` int(10) NOT NULL,
  `faction` smallint(5) NOT NULL,
  `standing` int(11) NOT NULL,
  PRIMARY KEY (`guid`, `faction`)
);
CREATE TABLE `character_skills` (
  `guid` int(10) NOT NULL,
  `skill` smallint(5) NOT NULL,
  `value` smallint(5) NOT NULL,
  PRIMARY KEY (`guid`, `skill`)
);
CREATE TABLE `character_action` (
  `guid` int(10) NOT NULL,
  `spec` tinyint(3) NOT NULL,
  `button` tinyint(3) NOT NULL,
  `action` int(10) NOT NULL,
  PRIMARY KEY (`guid`, `spec`, `button`)
);
CREATE TABLE `character_homebind` (
  `guid` int(10) NOT NULL,
  `mapId` smallint(5) NOT NULL,
  `zoneId` smallint(5) NOT NULL,
  PRIMARY KEY (`guid`)
);
CREATE TABLE `character_pet` (
  `id` int(10) NOT NULL,
  `owner` int(10) NOT NULL,
  `name` varchar(21) DEFAULT NULL COLLATE NOCASE,
  PRIMARY KEY (`id`)
);
CREATE TABLE `pet_spell` (
  `guid` int(10) NOT NULL,
  `spell` int(10) NOT NULL,
  `active` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`, `spell`)
);
CREATE TABLE `groups` (
  `guid` int(10) NOT NULL,
  `leaderGuid` int(10) NOT NULL,
  `lootMethod` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`)
);
CREATE TABLE `group_member` (
  `guid` int(10) NOT NULL,
  `memberGuid` int(10) NOT NULL,
  `memberFlags` tinyint(3) NOT NULL,
  PRIMARY KEY (`memberGuid`)
);
CREATE TABLE `arena_team` (
  `arenaTeamId` int(10) NOT NULL,
  `name` varchar(24) NOT NULL COLLATE NOCASE,
  `captainGuid` int(10) NOT NULL,
  PRIMARY KEY (`arenaTeamId`),
  UNIQUE (`name`)
);
CREATE TABLE `arena_team_member` (
  `arenaTeamId` int(10) NOT NULL,
  `guid` int(10) NOT NULL,
  `personalRating` smallint(5) NOT NULL,
  PRIMARY KEY (`arenaTeamId`, `guid`)
);
CREATE TABLE `auctionhouse` (
  `id` int(10) NOT NULL,
  `itemguid` int(10) NOT NULL,
  `itemowner` int(10) NOT NULL,
  `buyoutprice` int(10) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE (`itemguid`)
);
CREATE TABLE `account_data` (
  `accountId` int(10) NOT NULL,
  `type` tinyint(3) NOT NULL,
  `data` blob NOT NULL,
  PRIMARY KEY (`accountId`, `type`)
);
CREATE TABLE `character_account_data` (
  `guid` int(10) NOT NULL,
  `type` tinyint(3) NOT NULL,
  `data` blob NOT NULL,
  PRIMARY KEY (`guid`, `type`)
);
CREATE TABLE `channels` (
  `name` varchar(128) NOT NULL COLLATE BINARY,
  `team` int(10) NOT NULL,
  `announce` tinyint(3) NOT NULL,
  PRIMARY KEY (`name`, `team`)
);
CREATE TABLE `corpse` (
  `guid` int(10) NOT NULL,
  `posX` float NOT NULL,
  `mapId` smallint(5) NOT NULL,
  PRIMARY KEY (`guid`)
);
CREATE TABLE `gm_ticket` (
  `id` int(10) NOT NULL,
  `playerGuid` int(10) NOT NULL,
  `description` text NOT NULL COLLATE NOCASE,
  PRIMARY KEY (`id`)
);
CREATE TABLE `petition` (
  `ownerguid` int(10) NOT NULL,
  `petitionguid` int(10) NOT NULL,
  `name` varchar(24) NOT NULL COLLATE NOCASE,
  PRIMARY KEY (`ownerguid`),
  UNIQUE (`petitionguid`)
);
CREATE TABLE `petition_sign` (
  `petitionguid` int(10) NOT NULL,
  `playerguid` int(10) NOT NULL,
  `player_account` int(10) NOT NULL,
  PRIMARY KEY (`petitionguid`, `playerguid`)
);
CREATE TABLE `calendar_events` (
  `id` bigint(20) NOT NULL,
  `creator` int(10) NOT NULL,
  `title` varchar(255) NOT NULL COLLATE NOCASE,
  PRIMARY KEY (`id`)
);
CREATE TABLE `character_social` (
  `guid` int(10) NOT NULL,
  `friend` int(10) NOT NULL,
  `flags` tinyint(3) NOT NULL,
  PRIMARY KEY (`guid`, `friend`)
);
CREATE TABLE `character_equipmentsets` (
  `guid` int(10) NOT NULL,
  `setguid` bigint(20) NOT NULL,
  `setindex` tinyint(3) NOT NULL,
  `name` varchar(31) NOT NULL COLLATE NOCASE,
  PRIMARY KEY (`setguid`),
  UNIQUE (`guid`, `setindex`)
);
CREATE TABLE `worldstates` (
  `entry` int(10) NOT NULL,
  `value` int(10) NOT NULL,
  `comment` tinytext COLLATE NOCASE,
  PRIMARY KEY (`entry`)
);
CREATE TABLE `updates` (
  `name` varchar(200) NOT NULL COLLATE BINARY,
  `hash` char(40) DEFAULT '' COLLATE NOCASE,
  `state` TEXT NOT NULL DEFAULT 'RELEASED',
  PRIMARY KEY (`name`)
);
CREATE TABLE `updates_include` (
  `path` varchar(200) NOT NULL COLLATE BINARY,
  `state` TEXT NOT NULL DEFAULT 'RELEASED',
  PRIMARY KEY (`path`)
);
CREATE TABLE `instance_reset` (
  `mapid` smallint(5) NOT NULL,
  `difficulty` tinyint(3) NOT NULL,
  `resettime` int(10) NOT NULL,
  PRIMARY KEY (`mapid`, `difficulty`)
);
CREATE TABLE `game_event_save` (
  `eventEntry` tinyint(3) NOT NULL,
  `state` tinyint(3) NOT NULL,
  `next_start` int(10) NOT NULL,
  PRIMARY KEY (`eventEntry`)
);
CREATE TABLE `pool_quest_save` (
  `pool_id` int(10) NOT NULL,
  `quest_id` int(10) NOT NULL,
  PRIMARY KEY (`pool_id`, `quest_id`)
);
CREATE TABLE `warden_action` (
  `wardenId` smallint(5) NOT NULL,
  `action` tinyint(3) DEFAULT NULL,
  PRIMARY KEY (`wardenId`)
);
CREATE TABLE `log_money` (
  `sender_guid` int(10) NOT NULL,
  `receiver_guid` int(10) NOT NULL,
  `money` int(10) NOT NULL,
  `topic` varchar(255) NOT NULL COLLATE NOCASE
);
CREATE TABLE `log_arena_fights` (
  `fight_id` int(10) NOT NULL,
  `winner` int(10) NOT NULL,
  `loser` int(10) NOT NULL
);
CREATE TABLE `saved_variables` (
  `NextArenaPointDistributionTime` int(10) NOT NULL,
  `NextDailyQuestResetTime` int(10) NOT NULL
);
